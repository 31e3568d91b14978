/**
 * Batches streaming deltas so the chart pays one transition per batch instead of one per token.
 * A model streams dozens of tiny deltas per network read; each full machine transition costs
 * microseconds, appending to a string costs nanoseconds. Order is kept: a delta of another kind
 * (or another tool call) flushes what is pending first, and `flush()` runs before the final
 * `LlmCompleted`/`LlmError`, so the chart sees the same text in the same order, only in fewer
 * pieces.
 */
import { DeltaBatch } from '../machine/deltaBatch.js';
import type { LlmStreamDelta as Delta } from '../machine/types.js';

/**
 * How the coalescer defers a flush: it is given the flush and returns a cancel function.
 * `setImmediate` (the default) runs after the current I/O phase, so every delta parsed from one
 * network read lands in one batch.
 *
 * @example
 * const schedule: FlushScheduler = (flush) => {
 *   const handle = setImmediate(flush);
 *   return () => clearImmediate(handle);
 * };
 */
export type FlushScheduler = (flush: () => void) => () => void;

/**
 * The default scheduler: one batch per I/O tick.
 *
 * @example
 * new DeltaCoalescer(send, { schedule: flushEachTick });
 */
export const flushEachTick: FlushScheduler = (flush) => {
  const handle = setImmediate(flush);
  return () => clearImmediate(handle);
};

/**
 * Options of {@link DeltaCoalescer}.
 *
 * @example
 * const options: DeltaCoalescerOptions = {
 *   show: (text) => process.stdout.write(text),
 *   chartUpdates: 'onDemand',
 * };
 */
export interface DeltaCoalescerOptions {
  /** When a batch leaves (default {@link flushEachTick}). */
  schedule?: FlushScheduler;
  /**
   * Shows each batch's text when it leaves. The chart's copy is then marked `shown: true`, so
   * the chart records the text without emitting a second `DisplayMessage` for it.
   */
  show?: (text: string) => void;
  /**
   * When the chart gets its copy: with each batch (the default), or `'onDemand'`, only when the
   * owner calls `flush()` (before the chart's next event, before a read of its context). With
   * `show`, on demand takes the chart off the streaming path entirely: a batch costs the display
   * call, not a machine transition.
   */
  chartUpdates?: 'withEachBatch' | 'onDemand';
}

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
  /** Deltas not sent to the chart yet, merged into runs. */
  readonly #batch: DeltaBatch;
  /** Text not shown yet (with `show`). */
  #unshown = '';
  #cancel: (() => void) | null = null;
  readonly #send: (event: Delta) => void;
  readonly #schedule: FlushScheduler;
  readonly #show: ((text: string) => void) | undefined;
  readonly #chartOnDemand: boolean;

  constructor(send: (event: Delta) => void, options: DeltaCoalescerOptions = {}) {
    this.#send = send;
    this.#schedule = options.schedule ?? flushEachTick;
    this.#show = options.show;
    this.#chartOnDemand = options.chartUpdates === 'onDemand';
    this.#batch = new DeltaBatch(options.show !== undefined);
  }

  /** Adds one delta; it leaves with the next batch. */
  push(event: Delta): void {
    this.#batch.push(event);
    if (this.#show !== undefined && event.type === 'LlmTextDelta') this.#unshown += event.content;
    this.#cancel ??= this.#schedule(this.#scheduledFlush);
  }

  /** Shows and sends whatever is pending now (call it before the final event of a stream). */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#showPending();
    for (const event of this.#batch.drain()) this.#send(event);
  }

  /**
   * The stream ended with a complete response, which the caller sends next: text not shown yet
   * is shown, and the chart's pending copy is sent, or, when the chart updates on demand,
   * dropped, since the response carries all of it (one transition fewer per model call).
   *
   * @example
   * coalescer.finish();
   * sendBack({ type: 'LlmCompleted', response });
   */
  finish(): void {
    if (!this.#chartOnDemand) return this.flush();
    this.#showPending();
    this.discard();
  }

  /**
   * Drops whatever is pending (the stream was cancelled). Text already shown is lost to the
   * chart too, so an owner that shows text flushes before it cancels the stream.
   */
  discard(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#batch.clear();
    this.#unshown = '';
  }

  readonly #scheduledFlush = (): void => {
    this.#cancel = null;
    if (this.#chartOnDemand) this.#showPending();
    else this.flush();
  };

  #showPending(): void {
    if (this.#unshown.length === 0) return;
    const text = this.#unshown;
    this.#unshown = '';
    this.#show?.(text);
  }
}
