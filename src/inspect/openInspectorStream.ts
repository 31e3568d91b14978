/**
 * One page's live feed, as Server-Sent Events: the retained history first, then new steps in
 * batches. SSE because the feed only flows one way (time travel and selection happen in the
 * page), it needs nothing beyond `node:http`, and `EventSource` reconnects by itself, sending the
 * last id it saw, which maps straight onto the recorder's sequence numbers.
 */
import type { ServerResponse } from 'node:http';
import type { InspectionRecorder, RecorderChange } from './inspectionRecorder.js';
import type { InspectorMessage, RecordedStep } from './inspectorProtocol.js';

/**
 * Options of {@link openInspectorStream}.
 *
 * @example
 * const options: InspectorStreamOptions = { recorder, instance: 'k3x9', lastEventId: undefined };
 */
export interface InspectorStreamOptions {
  recorder: InspectionRecorder;
  /** Identifies this server process: ids from another one cannot be resumed. */
  instance: string;
  /** The `Last-Event-ID` header a reconnecting page sends. */
  lastEventId: string | undefined;
  /** Changes are sent in batches at most this often. Default 25 ms. */
  flushIntervalMs?: number;
  /** A page that lets this much output pile up is disconnected (it resumes on reconnect). Default 8 MiB. */
  maxBufferedBytes?: number;
  /** A comment line this often keeps proxies from closing an idle stream. Default 15 s. */
  heartbeatMs?: number;
}

type Item = { agentId: string; step: RecordedStep };

/**
 * Starts the feed on `response` and returns the function that ends it (also called when the page
 * goes away).
 *
 * @example
 * const stop = openInspectorStream(response, { recorder, instance, lastEventId: request.headers['last-event-id'] });
 */
export function openInspectorStream(
  response: ServerResponse,
  options: InspectorStreamOptions,
): () => void {
  const { recorder, instance } = options;
  const flushIntervalMs = options.flushIntervalMs ?? 25;
  const maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;

  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // Reverse proxies (nginx) would otherwise hold the stream back in their buffers.
    'X-Accel-Buffering': 'no',
  });
  response.write('retry: 1000\n\n');

  let closed = false;
  const write = (message: InspectorMessage, id?: number): void => {
    if (closed) return;
    const idLine = id === undefined ? '' : `id: ${instance}:${id}\n`;
    response.write(`event: ${message.event}\n${idLine}data: ${JSON.stringify(message.data)}\n\n`);
    if (response.writableLength > maxBufferedBytes) {
      // Too slow a reader: drop it rather than buffer without bound; it resumes on reconnect.
      stop();
      response.destroy();
    }
  };

  write({
    event: 'hello',
    data: { serverTime: Date.now(), maxSteps: recorder.maxSteps, instance },
  });
  replay(recorder, resumePoint(options.lastEventId, instance), write);

  let pending: RecorderChange[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    const changes = pending;
    pending = [];
    sendChanges(recorder, changes, write);
  };
  const unsubscribe = recorder.subscribe((change) => {
    pending.push(change);
    timer ??= setTimeout(flush, flushIntervalMs);
  });
  const heartbeat = setInterval(() => {
    if (!closed) response.write(': ping\n\n');
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  function stop(): void {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearTimeout(timer);
    clearInterval(heartbeat);
  }
  response.on('close', stop);
  return () => {
    stop();
    response.end();
  };
}

/** The seq a page already has everything up to, or `undefined` to start from scratch. */
function resumePoint(lastEventId: string | undefined, instance: string): number | undefined {
  const match = /^([^:]+):(\d+)$/.exec(lastEventId ?? '');
  if (match === null || match[1] !== instance) return undefined;
  return Number(match[2]);
}

/**
 * Sends what a page is missing: each agent's whole history, or, for a page resuming after `seen`,
 * only the newer steps of agents it fully has.
 */
function replay(
  recorder: InspectionRecorder,
  seen: number | undefined,
  write: (message: InspectorMessage, id?: number) => void,
): void {
  const items: Item[] = [];
  const agentIds: string[] = [];
  for (const { id } of recorder.agents()) {
    const history = recorder.history(id);
    if (history === undefined) continue;
    agentIds.push(id);
    if (seen !== undefined && history.registeredSeq <= seen && history.base.seq <= seen) {
      for (const step of history.steps) if (step.seq > seen) items.push({ agentId: id, step });
    } else {
      write({ event: 'agent', data: history });
    }
  }
  items.sort((a, b) => a.step.seq - b.step.seq);
  if (items.length > 0) write({ event: 'steps', data: { items } });
  write({ event: 'synced', data: { agentIds } }, recorder.seq);
}

/**
 * Sends one batch of changes in order. A new agent goes out as its full history (taken now), so
 * its steps already in that history are not sent again. Only the batch's last message carries an
 * id: a page cut off mid-batch resumes before it and ignores the steps it already has.
 */
function sendChanges(
  recorder: InspectionRecorder,
  changes: RecorderChange[],
  write: (message: InspectorMessage, id?: number) => void,
): void {
  const messages: InspectorMessage[] = [];
  const sentUpTo = new Map<string, number>();
  let items: Item[] = [];
  let maxSeq = 0;
  const closeSteps = () => {
    if (items.length > 0) messages.push({ event: 'steps', data: { items } });
    items = [];
  };
  for (const change of changes) {
    if (change.type === 'step') {
      maxSeq = Math.max(maxSeq, change.step.seq);
      if ((sentUpTo.get(change.agentId) ?? 0) >= change.step.seq) continue;
      items.push({ agentId: change.agentId, step: change.step });
      continue;
    }
    closeSteps();
    if (change.type === 'agent') {
      maxSeq = Math.max(maxSeq, change.seq);
      const history = recorder.history(change.agentId);
      if (history === undefined) continue;
      sentUpTo.set(change.agentId, history.steps.at(-1)?.seq ?? 0);
      messages.push({ event: 'agent', data: history });
    } else {
      sentUpTo.set(change.agentId, Number.POSITIVE_INFINITY);
      messages.push({ event: 'removed', data: { agentId: change.agentId } });
    }
  }
  closeSteps();
  messages.forEach((message, index) => {
    write(message, index === messages.length - 1 && maxSeq > 0 ? maxSeq : undefined);
  });
}
