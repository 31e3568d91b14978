/**
 * Turns a scripted reply into the event sequence the Messages API streams for it.
 */

import type { StopReason } from '../machine/index.js';
import type { ReplyTurn, ScriptedBlock } from './scriptedTurn.js';
import type { SseEvent } from './sseEncoding.js';

const DEFAULT_TEXT_CHUNK = 4;
const DEFAULT_JSON_CHUNK = 6;

/**
 * Where a reply is being answered: the request's model is echoed back, and the turn number makes
 * message and tool ids unique and stable across runs.
 *
 * @example
 * const context: ReplyContext = { turnIndex: 0, model: 'claude-sonnet-5-5', inputTokens: 12 };
 */
export interface ReplyContext {
  turnIndex: number;
  model: string;
  /** Reported as `usage.input_tokens` unless the turn sets its own. */
  inputTokens: number;
}

/**
 * The events of a reply, in the API's order: `message_start`; per block `content_block_start`,
 * its deltas and `content_block_stop` (with a `ping` after the first block starts, where the API
 * puts it); `message_delta` with the stop reason, stop sequence, stop details, the container
 * (when the turn names one) and usage; `message_stop`.
 *
 * Usage is reported in the API's fields: `message_start` carries `input_tokens`,
 * `cache_creation_input_tokens`, `cache_read_input_tokens`, `cache_creation`, `output_tokens`,
 * `service_tier` and `inference_geo`; `message_delta` the cumulative `input_tokens`, cache
 * counts and `output_tokens` (and `output_tokens_details.thinking_tokens` when there is
 * thinking).
 *
 * @example
 * const events = replyEvents(reply('Hi there'), { turnIndex: 0, model: 'm', inputTokens: 5 });
 * events.map((e) => e.event);
 * // ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta',
 * //  'content_block_stop', 'message_delta', 'message_stop']
 */
export function replyEvents(turn: ReplyTurn, context: ReplyContext): SseEvent[] {
  const textChunk = turn.textChunkSize ?? DEFAULT_TEXT_CHUNK;
  const jsonChunk = turn.jsonChunkSize ?? DEFAULT_JSON_CHUNK;
  const streamedBlocks = turn.content.map((block, index) =>
    streamBlock(block, index, context.turnIndex, textChunk, jsonChunk),
  );
  const usage = replyUsage(turn, context, streamedBlocks);
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_test_${context.turnIndex}`,
          type: 'message',
          role: 'assistant',
          model: context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          usage: usage.start,
        },
      },
    },
  ];
  streamedBlocks.forEach((streamed, index) => {
    events.push({
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index,
        content_block: streamed.start,
      },
    });
    if (index === 0) events.push(pingEvent());
    for (const delta of streamed.deltas) {
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta },
      });
    }
    events.push({
      event: 'content_block_stop',
      data: { type: 'content_block_stop', index },
    });
  });
  if (turn.content.length === 0) events.push(pingEvent());
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: {
          stop_reason: stopReasonOf(turn),
          stop_sequence: turn.stopSequence ?? null,
          stop_details: turn.stopDetails ?? null,
          ...(turn.container === undefined ? {} : { container: turn.container }),
        },
        usage: usage.delta,
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

/**
 * Cuts a string into pieces of at most `size` code points, so a surrogate pair is never split.
 *
 * @example
 * chunkText('Hello world', 4); // ['Hell', 'o wo', 'rld']
 */
export function chunkText(text: string, size: number): string[] {
  const points = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const chunks: string[] = [];
  for (let i = 0; i < points.length; i += step) chunks.push(points.slice(i, i + step).join(''));
  return chunks;
}

interface ReplyUsage {
  /** `message_start.message.usage`: the input side is known, output has barely begun. */
  start: Record<string, unknown>;
  /** `message_delta.usage`: the whole message's counts. */
  delta: Record<string, unknown>;
}

function replyUsage(
  turn: ReplyTurn,
  context: ReplyContext,
  blocks: readonly StreamedBlock[],
): ReplyUsage {
  const scripted = turn.usage ?? {};
  const cumulative = {
    input_tokens: scripted.input_tokens ?? context.inputTokens,
    cache_creation_input_tokens: scripted.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: scripted.cache_read_input_tokens ?? 0,
  };
  const outputChars = blocks.reduce((sum, block) => sum + block.outputChars, 0);
  const outputTokens = scripted.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
  const thinking = turn.content.flatMap((block) =>
    block.type === 'thinking' ? [block.thinking] : [],
  );
  const thinkingTokens = Math.ceil(thinking.join('').length / 4);
  return {
    start: {
      ...cumulative,
      cache_creation: {
        ephemeral_5m_input_tokens: cumulative.cache_creation_input_tokens,
        ephemeral_1h_input_tokens: 0,
      },
      output_tokens: Math.min(1, outputTokens),
      service_tier: 'standard',
      inference_geo: 'global',
    },
    delta: {
      ...cumulative,
      output_tokens: outputTokens,
      // Reported, as by the API, when the message holds thinking.
      ...(thinking.length > 0
        ? { output_tokens_details: { thinking_tokens: Math.min(thinkingTokens, outputTokens) } }
        : {}),
    },
  };
}

function stopReasonOf(turn: ReplyTurn): StopReason {
  if (turn.stopReason !== undefined) return turn.stopReason;
  if (turn.stopSequence !== undefined) return 'stop_sequence';
  return turn.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function pingEvent(): SseEvent {
  return { event: 'ping', data: { type: 'ping' } };
}

interface StreamedBlock {
  start: Record<string, unknown>;
  deltas: Record<string, unknown>[];
  outputChars: number;
}

function streamBlock(
  block: ScriptedBlock,
  index: number,
  turnIndex: number,
  textChunk: number,
  jsonChunk: number,
): StreamedBlock {
  switch (block.type) {
    case 'text':
      return {
        start: { type: 'text', text: '' },
        deltas: chunkText(block.text, textChunk).map((text) => ({
          type: 'text_delta',
          text,
        })),
        outputChars: block.text.length,
      };
    case 'tool_use': {
      const json = JSON.stringify(block.input);
      // The API opens every tool input with an empty fragment; clients must cope with it.
      const fragments = ['', ...chunkText(json, jsonChunk)];
      return {
        start: {
          type: 'tool_use',
          id: block.id ?? `toolu_test_${turnIndex}_${index}`,
          name: block.name,
          input: {},
        },
        deltas: fragments.map((partial_json) => ({
          type: 'input_json_delta',
          partial_json,
        })),
        outputChars: json.length,
      };
    }
    case 'thinking':
      return {
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [
          ...chunkText(block.thinking, textChunk).map((thinking) => ({
            type: 'thinking_delta',
            thinking,
          })),
          { type: 'signature_delta', signature: block.signature },
        ],
        outputChars: block.thinking.length,
      };
    case 'redacted_thinking':
      return {
        start: { type: 'redacted_thinking', data: block.data },
        deltas: [],
        outputChars: 0,
      };
  }
}
