/**
 * The law that lets a model call's stream be kept short: the chart only appends streamed text and
 * tool-call fragments, and `LlmStarted` clears them, so any run of streamed events has the same
 * effect on the context as a few merged ones. A session log relies on it to store a stream as
 * three events or so rather than hundreds.
 */
import type { LlmStartedEvent, LlmTextDeltaEvent, LlmToolCallDeltaEvent } from './events.js';

/** A streamed event (`EVENT_TRAITS` marks them `streamed`). */
export type StreamedEvent = LlmStartedEvent | LlmTextDeltaEvent | LlmToolCallDeltaEvent;

/**
 * A run of streamed events, merged as they come: what the chart would hold after taking all of
 * them, from whatever it held before.
 *
 * @example
 * const stream = new StreamBuffer();
 * stream.add({ type: 'LlmTextDelta', content: 'Hel' });
 * stream.add({ type: 'LlmTextDelta', content: 'lo' });
 * stream.events(); // [{ type: 'LlmTextDelta', content: 'Hello' }]
 */
export class StreamBuffer {
  #started = false;
  #text = '';
  /** Each streamed tool call's name and fragments so far, in the order the calls began. */
  #calls = new Map<string, { toolName: string; fragments: string }>();

  /** Whether nothing was added since the buffer was made or last cleared. */
  get empty(): boolean {
    return !this.#started && this.#text.length === 0 && this.#calls.size === 0;
  }

  add(event: StreamedEvent): void {
    switch (event.type) {
      case 'LlmStarted':
        // Everything before it is cleared by it.
        this.clear();
        this.#started = true;
        return;
      case 'LlmTextDelta':
        this.#text += event.content;
        return;
      case 'LlmToolCallDelta': {
        const call = this.#calls.get(event.callId);
        if (call === undefined) {
          this.#calls.set(event.callId, {
            toolName: event.toolName,
            fragments: event.argumentsFragment,
          });
        } else {
          call.fragments += event.argumentsFragment;
        }
        return;
      }
    }
  }

  /** The fewest events with the same effect as everything added, in the order to take them. */
  events(): StreamedEvent[] {
    const events: StreamedEvent[] = [];
    if (this.#started) events.push({ type: 'LlmStarted' });
    if (this.#text.length > 0) events.push({ type: 'LlmTextDelta', content: this.#text });
    for (const [callId, call] of this.#calls) {
      events.push({
        type: 'LlmToolCallDelta',
        callId,
        toolName: call.toolName,
        argumentsFragment: call.fragments,
      });
    }
    return events;
  }

  clear(): void {
    this.#started = false;
    this.#text = '';
    this.#calls = new Map();
  }
}

/**
 * The fewest streamed events with the same effect on the chart's context as `events`.
 *
 * @example
 * compactStream([{ type: 'LlmTextDelta', content: 'a' }, { type: 'LlmTextDelta', content: 'b' }]);
 * // [{ type: 'LlmTextDelta', content: 'ab' }]
 */
export function compactStream(events: readonly StreamedEvent[]): StreamedEvent[] {
  const buffer = new StreamBuffer();
  for (const event of events) buffer.add(event);
  return buffer.events();
}
