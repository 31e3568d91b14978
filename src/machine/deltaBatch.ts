/**
 * Streamed deltas merged into as few events as keep their meaning: one per run of text, one per
 * run of one tool call's argument fragments, in stream order. The chart appends each delta to its
 * context, so a merged run leaves exactly the context the deltas one by one would have left.
 * `DeltaCoalescer` batches a model call's deltas with it per I/O tick; `AgentCore` holds the
 * deltas it took without a transition with it until something needs the chart's copy.
 */
import type { LlmStreamDelta, LlmToolCallDeltaEvent } from './types.js';

/** What `drain()` returns when nothing is pending: hosts flush before every event. */
const NOTHING: readonly LlmStreamDelta[] = Object.freeze([]);

export class DeltaBatch {
  /** Text of the open run of text deltas (appending to a string is a rope append: O(1)). */
  #text = '';
  /** The first delta of the open run of one tool call's fragments, and the run's fragments. */
  #tool: LlmToolCallDeltaEvent | null = null;
  #toolArguments = '';
  /** Closed runs, in stream order. */
  #closed: LlmStreamDelta[] = [];
  readonly #shown: boolean;

  /**
   * `shown`: the text was displayed already, so merged text events carry `shown: true` and the
   * chart records them without a second `DisplayMessage`.
   */
  constructor(shown: boolean) {
    this.#shown = shown;
  }

  /** Adds one delta to its run; a delta of another kind or another call closes the open run. */
  push(event: LlmStreamDelta): void {
    if (event.type === 'LlmTextDelta') {
      if (this.#tool !== null) this.#closeTool();
      this.#text += event.content;
      return;
    }
    if (this.#text.length > 0) this.#closeText();
    if (this.#tool !== null && this.#tool.callId !== event.callId) this.#closeTool();
    // One event per run, built when the run closes: a fragment costs a string append.
    this.#tool ??= event;
    this.#toolArguments += event.argumentsFragment;
  }

  /** The merged events, in stream order; the batch is empty afterwards. */
  drain(): readonly LlmStreamDelta[] {
    if (this.#text.length > 0) this.#closeText();
    if (this.#tool !== null) this.#closeTool();
    const closed = this.#closed;
    if (closed.length === 0) return NOTHING;
    this.#closed = [];
    return closed;
  }

  /** Drops everything pending. */
  clear(): void {
    this.#text = '';
    this.#tool = null;
    this.#toolArguments = '';
    if (this.#closed.length > 0) this.#closed = [];
  }

  #closeText(): void {
    const content = this.#text;
    this.#text = '';
    this.#closed.push(
      this.#shown
        ? { type: 'LlmTextDelta', content, shown: true }
        : { type: 'LlmTextDelta', content },
    );
  }

  #closeTool(): void {
    const tool = this.#tool!;
    this.#closed.push({
      type: 'LlmToolCallDelta',
      callId: tool.callId,
      toolName: tool.toolName,
      argumentsFragment: this.#toolArguments,
    });
    this.#tool = null;
    this.#toolArguments = '';
  }
}
