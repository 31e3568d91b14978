/**
 * Batches a model call's streamed deltas so the chart takes one transition per batch instead of
 * one per token. A batch leaves once per turn of the event loop (`setImmediate`, after the I/O
 * phase): every delta parsed from the network reads of one tick lands in one batch, and the
 * chart's snapshot is never more than one tick behind the stream. Order is kept, and `flush()`
 * runs before the stream's final event, so the chart sees the same text in the same order, only
 * in fewer pieces.
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

const eachTick: FlushScheduler = (flush) => {
  const handle = setImmediate(flush);
  return () => clearImmediate(handle);
};

/**
 * Accumulates deltas and hands them on in batches.
 *
 * @example
 * const coalescer = new DeltaCoalescer((event) => sendBack(event));
 * coalescer.push({ type: 'LlmTextDelta', content: 'Hel' });
 * coalescer.push({ type: 'LlmTextDelta', content: 'lo' });
 * // on the next tick: sendBack({ type: 'LlmTextDelta', content: 'Hello' })
 */
export class DeltaCoalescer {
  readonly #batch = new DeltaBatch();
  readonly #send: (event: LlmStreamDelta) => void;
  readonly #schedule: FlushScheduler;
  #cancel: (() => void) | null = null;

  constructor(send: (event: LlmStreamDelta) => void, schedule: FlushScheduler = eachTick) {
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
