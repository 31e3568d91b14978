/**
 * Folding the events of a Messages API stream into the one Message a non-streaming request gets,
 * so a turn answers the same whether the client streams or not.
 */

import { parseSseFrame } from './sseEncoding.js';

type JsonObject = Record<string, unknown>;

/**
 * What a stream amounts to without streaming: the complete Message; the error its `error` event
 * reported; or no answer at all, with the reason (the stream is cut short, or holds something
 * this server cannot fold).
 *
 * @example
 * const folded: FoldedStream = { kind: 'error', errorType: 'overloaded_error', message: 'Overloaded' };
 */
export type FoldedStream =
  | { kind: 'message'; message: JsonObject }
  | { kind: 'error'; errorType: string; message: string }
  | { kind: 'unusable'; problem: string };

// The `message_delta.usage` counts the API documents as whole-message totals: each one present
// replaces the count `message_start` gave.
const CUMULATIVE_USAGE = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'server_tool_use',
  'output_tokens_details',
] as const;

/**
 * Folds stream events (the parsed `data` of each) into the Message they describe: the
 * `message_start` message, each block from its `content_block_start` with its deltas applied
 * (text, tool input JSON, thinking, signature, citations), and the stop reason, stop details,
 * container and usage of `message_delta`. `ping` and event types a client does not know are
 * skipped; the Message is complete at `message_stop`.
 *
 * @example
 * const folded = messageFromEvents(replyEvents(reply('Hi'), context).map((event) => event.data));
 * if (folded.kind === 'message') console.log(folded.message.content); // [{ type: 'text', text: 'Hi' }]
 */
export function messageFromEvents(events: readonly unknown[]): FoldedStream {
  let message: JsonObject | undefined;
  let content: unknown[] = [];
  const toolJson = new Map<number, string>();
  for (const [position, event] of events.entries()) {
    if (!isObject(event)) return unusable(`event ${position} is not a JSON object`);
    if (event.type === 'error') return streamError(event);
    if (event.type === 'message_start') {
      if (!isObject(event.message)) return unusable('message_start carries no message object');
      message = structuredClone(event.message);
      content = Array.isArray(message.content) ? message.content : [];
      message.content = content;
      continue;
    }
    if (event.type === 'ping') continue;
    if (message === undefined) {
      return unusable(`a ${String(event.type)} event comes before message_start`);
    }
    switch (event.type) {
      case 'content_block_start': {
        const index = blockIndex(event);
        if (index === undefined || !isObject(event.content_block)) {
          return unusable(`event ${position} (content_block_start) has no index or block`);
        }
        content[index] = structuredClone(event.content_block);
        break;
      }
      case 'content_block_delta': {
        const index = blockIndex(event);
        const block = index === undefined ? undefined : content[index];
        if (index === undefined || !isObject(block) || !isObject(event.delta)) {
          return unusable(`event ${position} (content_block_delta) names no started block`);
        }
        const problem = applyBlockDelta(block, event.delta, index, toolJson);
        if (problem !== undefined) return unusable(problem);
        break;
      }
      case 'content_block_stop': {
        const index = blockIndex(event);
        if (index === undefined) break;
        const problem = finishToolInput(content, index, toolJson);
        if (problem !== undefined) return unusable(problem);
        break;
      }
      case 'message_delta':
        applyMessageDelta(message, event);
        break;
      case 'message_stop': {
        // A block cut off by max_tokens may never see its content_block_stop.
        for (const index of [...toolJson.keys()]) {
          const problem = finishToolInput(content, index, toolJson);
          if (problem !== undefined) return unusable(problem);
        }
        return { kind: 'message', message };
      }
      default:
        break;
    }
  }
  return unusable(
    message === undefined
      ? 'the stream has no message_start'
      : 'the stream ends without message_stop',
  );
}

/**
 * Folds the frames of a recorded stream: the `data` of each frame is parsed as JSON (frames
 * without data are skipped), then folded as by {@link messageFromEvents}.
 *
 * @example
 * const folded = messageFromSseFrames(splitSseFrames(await readFile('basic_response.sse', 'utf8')));
 */
export function messageFromSseFrames(frames: readonly string[]): FoldedStream {
  const events: unknown[] = [];
  for (const [position, frame] of frames.entries()) {
    const { data } = parseSseFrame(frame);
    if (data.trim() === '') continue;
    const event = parseJson(data);
    if (event === undefined) return unusable(`frame ${position} has data that is not JSON`);
    events.push(event);
  }
  return messageFromEvents(events);
}

function applyBlockDelta(
  block: JsonObject,
  delta: JsonObject,
  index: number,
  toolJson: Map<number, string>,
): string | undefined {
  const appended = (field: string, piece: unknown): string | undefined => {
    if (typeof piece !== 'string')
      return `the ${String(delta.type)} of block ${index} is no string`;
    block[field] = `${typeof block[field] === 'string' ? block[field] : ''}${piece}`;
    return undefined;
  };
  switch (delta.type) {
    case 'text_delta':
      return appended('text', delta.text);
    case 'thinking_delta':
      return appended('thinking', delta.thinking);
    case 'signature_delta':
      block.signature = delta.signature;
      return undefined;
    case 'citations_delta':
      block.citations = [
        ...(Array.isArray(block.citations) ? (block.citations as unknown[]) : []),
        delta.citation,
      ];
      return undefined;
    case 'input_json_delta':
      if (typeof delta.partial_json !== 'string') {
        return `the input_json_delta of block ${index} is no string`;
      }
      toolJson.set(index, `${toolJson.get(index) ?? ''}${delta.partial_json}`);
      return undefined;
    default:
      return `content block ${index} has a ${String(delta.type)} delta, which this server cannot fold into a Message`;
  }
}

/**
 * Parses the tool input streamed for block `index` into the block. Input that never became whole
 * JSON has no faithful non-streaming form (the API's own would be a guess), so it is a problem.
 */
function finishToolInput(
  content: unknown[],
  index: number,
  toolJson: Map<number, string>,
): string | undefined {
  const json = toolJson.get(index);
  toolJson.delete(index);
  const block = content[index];
  if (json === undefined || json === '' || !isObject(block)) return undefined;
  const input = parseJson(json);
  if (input === undefined) {
    return `the tool input of content block ${index} never became whole JSON (${JSON.stringify(json.slice(0, 60))}…)`;
  }
  block.input = input;
  return undefined;
}

function applyMessageDelta(message: JsonObject, event: JsonObject): void {
  const delta = isObject(event.delta) ? event.delta : {};
  for (const field of ['stop_reason', 'stop_sequence', 'stop_details'] as const) {
    if (field in delta) message[field] = delta[field];
  }
  if (delta.container != null) message.container = delta.container;
  const counts = isObject(event.usage) ? event.usage : {};
  const usage: JsonObject = isObject(message.usage) ? message.usage : {};
  for (const field of CUMULATIVE_USAGE) {
    if (counts[field] != null) usage[field] = counts[field];
  }
  message.usage = usage;
}

function streamError(event: JsonObject): FoldedStream {
  const error = isObject(event.error) ? event.error : {};
  return {
    kind: 'error',
    errorType: typeof error.type === 'string' ? error.type : 'api_error',
    message: typeof error.message === 'string' ? error.message : '',
  };
}

function blockIndex(event: JsonObject): number | undefined {
  const { index } = event;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Each caller reports the failure with what it knows (which block, which frame).
    return undefined;
  }
}

function unusable(problem: string): FoldedStream {
  return { kind: 'unusable', problem };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
