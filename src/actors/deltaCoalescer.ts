/**
 * Batches a model call's streamed deltas so the chart takes one transition per batch instead of
 * one per token, with at most one batch per window (16 ms, a display frame, by default). A delta
 * that arrives after a quiet window goes at once; those that follow within the window wait for
 * its end and leave together. So a slow stream costs one transition per delta and no timer, a
 * fast one a transition per frame, and no text is ever more than one window behind the stream.
 * With a window of 0, deltas leave once per turn of the event loop (`setImmediate`, after the I/O
 * phase). Order is kept, and `flush()` runs before the stream's final event, so the chart sees the
 * same text in the same order, only in fewer pieces. What has not left when the call is cancelled
 * was never shown and is dropped.
 */
import type { LlmStreamDelta } from '../machine/index.js';
import { DeltaBatch } from './deltaBatch.js';

/**
 * How the coalescer defers a flush by `delayMs` (0: the next turn of the event loop); returns a
 * cancel function.
 *
 * @example
 * const schedule: FlushScheduler = (flush, delayMs) => {
 *   const handle = setTimeout(flush, delayMs);
 *   return () => clearTimeout(handle);
 * };
 */
export type FlushScheduler = (flush: () => void, delayMs: number) => () => void;

/** The default window: one display frame. */
export const DEFAULT_DELTA_WINDOW_MS = 16;

const timers: FlushScheduler = (flush, delayMs) => {
  if (delayMs <= 0) {
    const handle = setImmediate(flush);
    return () => clearImmediate(handle);
  }
  const handle = setTimeout(flush, delayMs);
  return () => clearTimeout(handle);
};

/**
 * Options of a {@link DeltaCoalescer}.
 *
 * @example
 * const options: DeltaCoalescerOptions = { windowMs: 50 };
 */
export interface DeltaCoalescerOptions {
  /** At most one batch per this many milliseconds (default 16); 0: one per event-loop tick. */
  windowMs?: number;
  /** Defers flushes (default: `setTimeout`, or `setImmediate` for 0). */
  schedule?: FlushScheduler;
  /** The clock windows are measured with (default `Date.now`). */
  now?: () => number;
}

/**
 * Accumulates deltas and hands them on in batches.
 *
 * @example
 * const coalescer = new DeltaCoalescer((event) => sendBack(event));
 * coalescer.push({ type: 'LlmTextDelta', content: 'Hel' }); // sent at once
 * coalescer.push({ type: 'LlmTextDelta', content: 'lo' });
 * coalescer.push({ type: 'LlmTextDelta', content: '!' });
 * // when the window ends: sendBack({ type: 'LlmTextDelta', content: 'lo!' })
 */
export class DeltaCoalescer {
  readonly #batch = new DeltaBatch();
  readonly #send: (event: LlmStreamDelta) => void;
  readonly #windowMs: number;
  readonly #schedule: FlushScheduler;
  readonly #now: () => number;
  /** Cancels the scheduled flush; set while a batch waits. */
  #cancel: (() => void) | null = null;
  /** Before this time a delta waits for the window's end; from it on, one goes at once. */
  #windowEnd = Number.NEGATIVE_INFINITY;

  constructor(send: (event: LlmStreamDelta) => void, options: DeltaCoalescerOptions = {}) {
    this.#send = send;
    this.#windowMs = Math.max(0, options.windowMs ?? DEFAULT_DELTA_WINDOW_MS);
    this.#schedule = options.schedule ?? timers;
    this.#now = options.now ?? Date.now;
  }

  /** Adds one delta; it leaves at once after a quiet window, else with the window's batch. */
  push(event: LlmStreamDelta): void {
    if (this.#windowMs > 0 && this.#cancel === null) {
      const now = this.#now();
      if (now >= this.#windowEnd) {
        this.#windowEnd = now + this.#windowMs;
        this.#send(event);
        return;
      }
    }
    this.#batch.push(event);
    if (this.#cancel !== null) return;
    // Clamped, so a clock set back cannot hold text longer than one window.
    const delay =
      this.#windowMs > 0 ? Math.min(this.#windowMs, Math.max(0, this.#windowEnd - this.#now())) : 0;
    this.#cancel = this.#schedule(() => this.flush(), delay);
  }

  /** Sends whatever is pending now (call it before the final event of a stream). */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    const events = this.#batch.drain();
    if (events.length === 0) return;
    if (this.#windowMs > 0) this.#windowEnd = this.#now() + this.#windowMs;
    for (const event of events) this.#send(event);
  }

  /** Drops whatever is pending (the stream was cancelled). */
  discard(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#batch.clear();
  }
}
