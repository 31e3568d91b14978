/**
 * Batches streaming deltas so the chart pays one transition per I/O tick instead of one per token.
 * A model streams dozens of tiny deltas per network read; each full machine transition costs
 * microseconds, appending to a string costs nanoseconds. Order is kept: a delta of another kind
 * (or another tool call) flushes what is pending first, and `flush()` runs before the final
 * `LlmCompleted`/`LlmError`, so the chart sees the same text in the same order, only in fewer
 * pieces.
 */
import type { LlmTextDeltaEvent, LlmToolCallDeltaEvent } from '../machine/types.js';

type Delta = LlmTextDeltaEvent | LlmToolCallDeltaEvent;

/**
 * How the coalescer defers a flush. `setImmediate` runs after the current I/O phase, so every
 * delta parsed from one network read lands in one batch.
 *
 * @example
 * const schedule: FlushScheduler = (flush) => {
 *   const handle = setImmediate(flush);
 *   return () => clearImmediate(handle);
 * };
 */
export type FlushScheduler = (flush: () => void) => () => void;

const nextTick: FlushScheduler = (flush) => {
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
  #text = '';
  #tool: LlmToolCallDeltaEvent | null = null;
  #cancel: (() => void) | null = null;
  readonly #send: (event: Delta) => void;
  readonly #schedule: FlushScheduler;

  constructor(send: (event: Delta) => void, schedule: FlushScheduler = nextTick) {
    this.#send = send;
    this.#schedule = schedule;
  }

  /** Adds one delta; it is sent with the next batch. */
  push(event: Delta): void {
    if (event.type === 'LlmTextDelta') {
      if (this.#tool !== null) this.#flushTool();
      this.#text += event.content;
    } else {
      if (this.#text.length > 0) this.#flushText();
      const pending = this.#tool;
      if (pending !== null && pending.callId !== event.callId) this.#flushTool();
      this.#tool =
        this.#tool === null
          ? { ...event }
          : {
              ...this.#tool,
              argumentsFragment: this.#tool.argumentsFragment + event.argumentsFragment,
            };
    }
    this.#cancel ??= this.#schedule(() => {
      this.#cancel = null;
      this.flush();
    });
  }

  /** Sends whatever is pending now (call it before the final event of a stream). */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    if (this.#text.length > 0) this.#flushText();
    if (this.#tool !== null) this.#flushTool();
  }

  /** Drops whatever is pending (the stream was cancelled; nobody saw it, nobody keeps it). */
  discard(): void {
    this.#cancel?.();
    this.#cancel = null;
    this.#text = '';
    this.#tool = null;
  }

  #flushText(): void {
    const content = this.#text;
    this.#text = '';
    this.#send({ type: 'LlmTextDelta', content });
  }

  #flushTool(): void {
    const tool = this.#tool;
    this.#tool = null;
    if (tool !== null) this.#send(tool);
  }
}
