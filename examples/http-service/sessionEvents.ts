/**
 * What one session did, as a numbered log that Server-Sent-Events clients read (and re-read from
 * `Last-Event-ID` after a reconnect). The agent itself lives in the host and the store; this log
 * is only for watchers, kept while someone could still want it.
 */
import type { ServerResponse } from 'node:http';
import type { AgentNotificationName } from 'agent-statechart';
import { openEventStream, writeEvent } from './http.js';

/**
 * One entry of the event log, sent to clients as an SSE event named `type`.
 *
 * @example
 * const event: SessionEvent = { id: 1_764_000_000_000_003, type: 'text', data: { text: 'Hello' } };
 */
export interface SessionEvent {
  id: number;
  type: AgentNotificationName | 'turnEnd' | 'closed';
  data: unknown;
}

/** Enough history for a reconnecting client; older events are dropped. */
const LOG_LIMIT = 2_000;

/**
 * The ids of a service's events, one sequence for all its logs: a log made again for a session
 * (the old one was forgotten while idle) goes on after the ids clients already saw. Ids also go on
 * increasing when the service restarts: each run starts from its start time in microseconds, so a
 * client that reconnects with an id of an earlier run gets everything.
 *
 * @example
 * const nextId = eventIds();
 * const events = new SessionEvents(() => logs.delete(id), 60_000, nextId);
 */
export function eventIds(): () => number {
  let last = Date.now() * 1_000;
  return () => ++last;
}

/**
 * A session's event log and its connected SSE clients.
 *
 * @example
 * const events = new SessionEvents(() => logs.delete(id), 60_000, eventIds());
 * events.record('text', { text: 'Hello' });
 * events.subscribe(response, 0);
 */
export class SessionEvents {
  readonly #log: SessionEvent[] = [];
  readonly #clients = new Set<ServerResponse>();
  readonly #forget: () => void;
  readonly #idleMs: number;
  readonly #nextId: () => number;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  /**
   * `forget` is called once the log has had no client and no event for `idleMs`; `nextId` numbers
   * the events (one `eventIds()` for all the logs of a service).
   */
  constructor(forget: () => void, idleMs: number, nextId: () => number) {
    this.#forget = forget;
    this.#idleMs = idleMs;
    this.#nextId = nextId;
    this.#touch();
  }

  /**
   * Streams the log to `response` as Server-Sent Events: first what came after `lastEventId`,
   * then every new event, until the client goes away or the session is deleted.
   *
   * @example
   * events.subscribe(response, Number(request.headers['last-event-id'] ?? 0));
   */
  subscribe(response: ServerResponse, lastEventId: number): void {
    openEventStream(response);
    for (const event of this.#log) if (event.id > lastEventId) write(response, event);
    if (this.#closed) {
      response.end();
      return;
    }
    this.#clients.add(response);
    clearTimeout(this.#idleTimer);
    response.on('close', () => {
      this.#clients.delete(response);
      this.#touch();
    });
  }

  /**
   * Adds an event and sends it to every client.
   *
   * @example
   * events.record('turnEnd', { state: 'WaitingForUserInput' });
   */
  record(type: SessionEvent['type'], data: unknown): void {
    if (this.#closed) return;
    const event: SessionEvent = { id: this.#nextId(), type, data };
    this.#log.push(event);
    if (this.#log.length > LOG_LIMIT) this.#log.shift();
    for (const client of this.#clients) write(client, event);
    this.#touch();
  }

  /**
   * Records `closed` and ends every client's stream: the session is gone.
   *
   * @example
   * events.close({ state: 'ShuttingDown' });
   */
  close(data: unknown): void {
    this.record('closed', data);
    this.#closed = true;
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  /** Restarts the idle clock while no client is connected. */
  #touch(): void {
    clearTimeout(this.#idleTimer);
    if (this.#clients.size > 0) return;
    this.#idleTimer = setTimeout(this.#forget, this.#idleMs);
    this.#idleTimer.unref();
  }
}

function write(response: ServerResponse, event: SessionEvent): void {
  writeEvent(response, event.id, event.type, event.data);
}
