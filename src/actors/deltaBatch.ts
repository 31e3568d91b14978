/**
 * Streamed deltas merged into as few events as keep their meaning: one per run of text, one per
 * run of one tool call's argument fragments, in stream order. The chart appends each delta to its
 * context, so a merged run leaves exactly the context the deltas one by one would have left.
 */
import type { LlmStreamDelta, LlmToolCallDeltaEvent } from '../machine/index.js';

export class DeltaBatch {
  /** Text of the open run of text deltas. */
  #text = '';
  /** The first delta of the open run of one tool call's fragments, and the run's fragments. */
  #tool: LlmToolCallDeltaEvent | null = null;
  #toolArguments = '';
  /** Closed runs, in stream order. */
  #closed: LlmStreamDelta[] = [];

  /** Adds one delta to its run; a delta of another kind or another call closes the open run. */
  push(event: LlmStreamDelta): void {
    if (event.type === 'LlmTextDelta') {
      if (this.#tool !== null) this.#closeTool();
      this.#text += event.content;
      return;
    }
    if (this.#text.length > 0) this.#closeText();
    if (this.#tool !== null && this.#tool.callId !== event.callId) this.#closeTool();
    this.#tool ??= event;
    this.#toolArguments += event.argumentsFragment;
  }

  /** The merged events, in stream order; the batch is empty afterwards. */
  drain(): LlmStreamDelta[] {
    if (this.#text.length > 0) this.#closeText();
    if (this.#tool !== null) this.#closeTool();
    const closed = this.#closed;
    this.#closed = [];
    return closed;
  }

  /** Drops everything pending. */
  clear(): void {
    this.#text = '';
    this.#tool = null;
    this.#toolArguments = '';
    this.#closed = [];
  }

  #closeText(): void {
    this.#closed.push({ type: 'LlmTextDelta', content: this.#text });
    this.#text = '';
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
