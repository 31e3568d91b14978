/**
 * Batches a model call's streamed deltas so the chart takes one transition per batch instead of
 * one per token. A batch leaves one display frame after its first delta (16 ms by default), or
 * once per turn of the event loop with a window of 0 (`setImmediate`, after the I/O phase). The
 * model sends tokens one per network read, so a tick rarely holds more than one; a frame holds
 * several, and no reader can tell text shown a frame later. Order is kept, and `flush()` runs
 * before the stream's final event, so the chart sees the same text in the same order, only in
 * fewer pieces. What has not left when the call is cancelled was never shown and is dropped.
 */
import type { LlmStreamDelta } from '../machine/types.js';
import { DeltaBatch } from './deltaBatch.js';

/**
 * How the coalescer defers a flush: it is given the flush and returns a cancel function.
 *
 * @example
 * const eachTick: FlushScheduler = (flush) => {
 *   const handle = setImmediate(flush);
 *   return () => clearImmediate(handle);
 * };
 */
export type FlushScheduler = (flush: () => void) => () => void;

/** The default window: one display frame. */
export const DEFAULT_DELTA_WINDOW_MS = 16;

/**
 * A scheduler that flushes `windowMs` after a batch's first delta, or on the next turn of the
 * event loop when `windowMs` is 0.
 *
 * @example
 * const coalescer = new DeltaCoalescer(send, afterWindow(50));
 */
export function afterWindow(windowMs: number): FlushScheduler {
  if (windowMs <= 0) {
    return (flush) => {
      const handle = setImmediate(flush);
      return () => clearImmediate(handle);
    };
  }
  return (flush) => {
    const handle = setTimeout(flush, windowMs);
    return () => clearTimeout(handle);
  };
}

/**
 * Accumulates deltas and hands them on in batches.
 *
 * @example
 * const coalescer = new DeltaCoalescer((event) => sendBack(event));
 * coalescer.push({ type: 'LlmTextDelta', content: 'Hel' });
 * coalescer.push({ type: 'LlmTextDelta', content: 'lo' });
 * // a frame later: sendBack({ type: 'LlmTextDelta', content: 'Hello' })
 */
export class DeltaCoalescer {
  readonly #batch = new DeltaBatch();
  readonly #send: (event: LlmStreamDelta) => void;
  readonly #schedule: FlushScheduler;
  #cancel: (() => void) | null = null;

  constructor(
    send: (event: LlmStreamDelta) => void,
    schedule: FlushScheduler = afterWindow(DEFAULT_DELTA_WINDOW_MS),
  ) {
    this.#send = send;
    this.#schedule = schedule;
  }

  /** Adds one delta; it leaves with the next batch. */
  push(event: LlmStreamDelta): void {
    this.#batch.push(event);
    this.#cancel ??= this.#schedule(() => this.flush());
  }

  /** Sends whatever is pending now (call it before the final event of a stream). */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    for (const event of this.#batch.drain()) this.#send(event);
  }

  /** Drops whatever is pending (the stream was cancelled). */
  discard(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#batch.clear();
  }
}
