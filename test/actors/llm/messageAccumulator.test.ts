import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import {
  type AccumulatorStep,
  MessageAccumulator,
} from '../../../src/actors/llm/messageAccumulator.js';

/** Events as they come off the wire: plain JSON, typed the way the SDK types what it parses. */
const wire = (value: object) => value as RawMessageStreamEvent;

const messageStart = wire({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 3 },
  },
});
const startText = (index: number) =>
  wire({
    type: 'content_block_start',
    index,
    content_block: { type: 'text', text: '' },
  });
const startTool = (index: number, id: string, name: string) =>
  wire({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id, name, input: {} },
  });
const textDelta = (index: number, text: string) =>
  wire({
    type: 'content_block_delta',
    index,
    delta: { type: 'text_delta', text },
  });
const jsonDelta = (index: number, partial_json: string) =>
  wire({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json },
  });
const stop = (index: number) => wire({ type: 'content_block_stop', index });
const messageDelta = (stop_reason: string, usage: object) =>
  wire({
    type: 'message_delta',
    delta: { stop_reason, stop_sequence: null },
    usage,
  });
const messageStop = wire({ type: 'message_stop' });

function applyAll(
  accumulator: MessageAccumulator,
  events: RawMessageStreamEvent[],
): AccumulatorStep[] {
  return events.map((event) => accumulator.apply(event));
}

function protocolError(detail: string) {
  return {
    ok: false,
    error: {
      kind: 'server',
      message: `the response stream broke the Messages API protocol: ${detail}`,
    },
  };
}

describe('MessageAccumulator', () => {
  it('rejects a delta for a block that was never started', () => {
    const accumulator = new MessageAccumulator();
    const steps = applyAll(accumulator, [messageStart, startText(0), textDelta(1, 'x')]);

    expect(steps.at(-1)).toEqual(
      protocolError('content_block_delta for block 1, which was never started'),
    );
  });

  it('rejects a delta for a block that was already stopped', () => {
    const accumulator = new MessageAccumulator();
    const steps = applyAll(accumulator, [messageStart, startText(0), stop(0), textDelta(0, 'x')]);

    expect(steps.at(-1)).toEqual(
      protocolError('content_block_delta for block 0, which was already stopped'),
    );
  });

  it('rejects a stop for a block that was never started, and a second stop', () => {
    const first = new MessageAccumulator();
    expect(applyAll(first, [messageStart, stop(0)]).at(-1)).toEqual(
      protocolError('content_block_stop for block 0, which was never started'),
    );
    const second = new MessageAccumulator();
    expect(applyAll(second, [messageStart, startText(0), stop(0), stop(0)]).at(-1)).toEqual(
      protocolError('a second content_block_stop for block 0'),
    );
  });

  it('rejects blocks that start out of order', () => {
    const accumulator = new MessageAccumulator();
    const steps = applyAll(accumulator, [messageStart, startText(1)]);

    expect(steps.at(-1)).toEqual(
      protocolError('content_block_start for block 1, expected block 0'),
    );
  });

  it('rejects events before message_start and after message_stop', () => {
    expect(new MessageAccumulator().apply(startText(0))).toEqual(
      protocolError('content_block_start before message_start'),
    );
    const done = new MessageAccumulator();
    applyAll(done, [messageStart, messageStop]);
    expect(done.apply(textDelta(0, 'late'))).toEqual(
      protocolError('content_block_delta after message_stop'),
    );
  });

  it('rejects a delta that does not fit its block', () => {
    const accumulator = new MessageAccumulator();
    const steps = applyAll(accumulator, [
      messageStart,
      startTool(0, 'toolu_1', 'bash'),
      textDelta(0, 'x'),
    ]);

    expect(steps.at(-1)).toEqual(protocolError('text_delta for the tool_use block 0'));
  });

  it('forwards text and tool input deltas, skipping empty ones', () => {
    const accumulator = new MessageAccumulator();
    const steps = applyAll(accumulator, [
      messageStart,
      startText(0),
      textDelta(0, ''),
      textDelta(0, 'Hi'),
      stop(0),
      startTool(1, 'toolu_1', 'bash'),
      jsonDelta(1, ''),
      jsonDelta(1, '{"a":1}'),
    ]);

    expect(steps.flatMap((step) => (step.ok && step.delta ? [step.delta] : []))).toEqual([
      { type: 'LlmTextDelta', content: 'Hi' },
      {
        type: 'LlmToolCallDelta',
        callId: 'toolu_1',
        toolName: 'bash',
        argumentsFragment: '',
      },
      {
        type: 'LlmToolCallDelta',
        callId: 'toolu_1',
        toolName: 'bash',
        argumentsFragment: '{"a":1}',
      },
    ]);
  });

  it('reports a stream that ends before message_stop as a network error', () => {
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [messageStart, startText(0), textDelta(0, 'Hel')]);

    expect(accumulator.finish()).toEqual({
      ok: false,
      error: {
        kind: 'network',
        message:
          'the response stream ended before message_stop (after 3 events, 1 content blocks started, 1 still open)',
      },
    });
    const empty = new MessageAccumulator().finish();
    expect(!empty.ok && empty.error.kind).toBe('network');
    expect(!empty.ok && empty.error.message).toContain('before message_start');
  });

  it('takes stop reason and usage from message_delta, keeping message_start usage it does not update', () => {
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [
      messageStart,
      startText(0),
      textDelta(0, 'Done.'),
      stop(0),
      messageDelta('end_turn', { output_tokens: 42, input_tokens: null }),
      messageStop,
    ]);

    expect(accumulator.finish()).toEqual({
      ok: true,
      response: {
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'Done.' }],
        },
        stopReason: 'end_turn',
        usage: {
          input_tokens: 12,
          output_tokens: 42,
          cache_read_input_tokens: 3,
        },
        id: 'msg_1',
        model: 'm',
      },
    });
  });

  it('reports a tool input that is valid JSON but not an object', () => {
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [
      messageStart,
      startTool(0, 'toolu_1', 'bash'),
      jsonDelta(0, '[1, 2]'),
      stop(0),
      messageDelta('tool_use', { output_tokens: 5 }),
      messageStop,
    ]);

    const outcome = accumulator.finish();
    expect(outcome.ok && outcome.response.toolInputErrors).toEqual({
      toolu_1: 'the input JSON for tool bash does not parse: it is [1,2], not a JSON object',
    });
    expect(outcome.ok && outcome.response.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} },
    ]);
  });

  it('keeps the input given whole in content_block_start when no fragments follow', () => {
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [
      messageStart,
      wire({
        type: 'content_block_start',
        index: 0,
        content_block: {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'noop',
          input: { ready: true },
        },
      }),
      stop(0),
      messageStop,
    ]);

    const outcome = accumulator.finish();
    expect(outcome.ok && outcome.response.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'noop', input: { ready: true } },
    ]);
  });

  it('keeps redacted thinking and unknown blocks exactly as they started', () => {
    const redacted = {
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4a',
    };
    const future = { type: 'future_block', payload: { nested: [1, 2, 3] } };
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [
      messageStart,
      wire({ type: 'content_block_start', index: 0, content_block: redacted }),
      stop(0),
      wire({ type: 'content_block_start', index: 1, content_block: future }),
      wire({
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'future_delta', x: 1 },
      }),
      stop(1),
      wire({ type: 'future_event' }),
      messageStop,
    ]);

    const outcome = accumulator.finish();
    expect(outcome.ok && outcome.response.message.content).toEqual([redacted, future]);
  });

  it('appends citations to their text block', () => {
    const citation = {
      type: 'char_location',
      cited_text: 'x',
      document_index: 0,
    };
    const accumulator = new MessageAccumulator();
    applyAll(accumulator, [
      messageStart,
      startText(0),
      textDelta(0, 'Cited.'),
      wire({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'citations_delta', citation },
      }),
      stop(0),
      messageStop,
    ]);

    const outcome = accumulator.finish();
    expect(outcome.ok && outcome.response.message.content).toEqual([
      { type: 'text', text: 'Cited.', citations: [citation] },
    ]);
  });
});
