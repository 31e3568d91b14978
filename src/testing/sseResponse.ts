/**
 * Writing an event stream to an HTTP response frame by frame, with pacing and deliberate
 * breakage, and without ever throwing when the client has already gone away.
 */

import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { apiErrorBody } from './apiErrorBody.js';
import { cutError, type StreamCut } from './scriptedTurn.js';
import { encodeSseEvent } from './sseEncoding.js';

/**
 * How to send one stream: the pause between frames and where (and how) to break it off.
 *
 * @example
 * const plan: FramePlan = { eventDelayMs: 10, cut: { afterEvents: 2, by: 'end_response' } };
 */
export interface FramePlan {
  eventDelayMs: number;
  cut?: StreamCut | undefined;
}

/**
 * Waits `ms`, or less if `signal` aborts. Resolves `true` when the full time passed.
 *
 * @example
 * if (!(await pause(50, signal))) return; // the client left or the server is closing
 */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends the frames of an SSE response (status 200 with `headers`), pausing between frames and
 * applying the cut when its event count is reached. Resolves when the response is finished,
 * broken off, or abandoned because `signal` aborted (client gone, server closing).
 *
 * @example
 * await writeSseFrames(res, frames, { eventDelayMs: 0 }, { 'request-id': 'req_test_000001' }, signal);
 */
export async function writeSseFrames(
  res: ServerResponse,
  frames: readonly string[],
  plan: FramePlan,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  res.flushHeaders();
  for (let index = 0; index <= frames.length; index++) {
    if (plan.cut !== undefined && index === plan.cut.afterEvents) {
      await breakOff(res, plan.cut);
      return;
    }
    const frame = frames[index];
    if (frame === undefined) break;
    if (index > 0 && !(await pause(plan.eventDelayMs, signal))) return;
    if (!(await writeFrame(res, frame))) return;
  }
  res.end();
}

async function breakOff(res: ServerResponse, cut: StreamCut): Promise<void> {
  switch (cut.by) {
    case 'destroy_connection':
      res.destroy();
      return;
    case 'end_response':
      res.end();
      return;
    case 'error_event': {
      const { errorType, message } = cutError(cut);
      // The documented `error` event carries no request id; the `request-id` header has it.
      await writeFrame(
        res,
        encodeSseEvent({ event: 'error', data: apiErrorBody(errorType, message) }),
      );
      res.end();
      return;
    }
  }
}

/** Resolves once the frame is handed to the socket, so a following cut cannot overtake it. */
function writeFrame(res: ServerResponse, frame: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    res.write(frame, (error) => resolve(error == null));
  });
}
