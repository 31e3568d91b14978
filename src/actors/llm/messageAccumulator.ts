/**
 * Rebuilding the assistant message from the raw events of a Messages API stream, checking that
 * the events come in an order the API can produce.
 *
 * Where the stream stands is one explicit phase (waiting for `message_start`, streaming,
 * complete), and each content block is either open or stopped; an event that does not fit the
 * phase or the block it names is a protocol error, reported as data. Text and tool-input pieces
 * are collected in arrays and joined once per block, so a delta costs O(1).
 */

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import {
  checkEvent,
  type ContentBlock,
  errorMessage,
  type LlmError,
  type LlmResponse,
  type LlmStreamDelta,
  type OtherBlock,
  type StopReason,
  type Usage,
} from '../../machine/index.js';

/**
 * A model response as the LLM actor delivers it. `toolInputErrors` maps the id of each
 * `tool_use` whose streamed input never became a JSON object (typically cut off by `max_tokens`)
 * to a sentence the model can be told; such a block stays in the message with `input: {}` so
 * the transcript keeps one `tool_use` per id. Absent when every input parsed.
 *
 * @example
 * const response: StreamedLlmResponse = {
 *   message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'make_file', input: {} }] },
 *   stopReason: 'max_tokens',
 *   toolInputErrors: { toolu_1: 'the input JSON for tool make_file was cut off (stop_reason max_tokens) and does not parse: …' },
 * };
 */
export interface StreamedLlmResponse extends LlmResponse {
  toolInputErrors?: Record<string, string>;
}

export type { LlmStreamDelta };

/**
 * The outcome of applying one stream event: fine (perhaps with a delta to forward), or a
 * protocol error that ends the stream.
 *
 * @example
 * const step = accumulator.apply(event);
 * if (!step.ok) return { ok: false, error: step.error };
 * if (step.delta) onEvent(step.delta);
 */
export type AccumulatorStep = { ok: true; delta?: LlmStreamDelta } | { ok: false; error: LlmError };

/**
 * The outcome of a whole stream: the response, or why there is none.
 *
 * @example
 * const outcome = accumulator.finish();
 * if (outcome.ok) console.log(outcome.response.stopReason);
 */
export type AccumulatorOutcome =
  { ok: true; response: StreamedLlmResponse } | { ok: false; error: LlmError };

type BlockStatus = 'open' | 'stopped';

type BlockInProgress =
  | {
      kind: 'text';
      status: BlockStatus;
      start: OtherBlock;
      parts: string[];
      citations: unknown[];
    }
  | {
      kind: 'thinking';
      status: BlockStatus;
      start: OtherBlock;
      parts: string[];
      signature: string | undefined;
    }
  | {
      kind: 'tool_input';
      status: BlockStatus;
      start: OtherBlock;
      fragments: string[];
      /** Set for `tool_use` (a call the agent runs); unset for server-side tools. */
      localCall: { id: string; name: string } | undefined;
    }
  | { kind: 'opaque'; status: BlockStatus; start: OtherBlock };

type Phase =
  | { name: 'awaiting_message_start' }
  | {
      name: 'streaming';
      blocks: BlockInProgress[];
      usage: Record<string, unknown> | undefined;
      stopReason: StopReason | undefined;
      facts: MessageFacts;
    }
  | { name: 'complete'; response: StreamedLlmResponse };

/**
 * Accumulates the raw events of one streamed response (`client.messages.create({ stream: true })`
 * yields them) into the final assistant message.
 *
 * Order rules: `message_start` first and once; block indexes start at 0 and go up by one; a
 * delta or stop must name an open block; a delta must fit its block (`text_delta` into text,
 * `input_json_delta` into a tool block, `thinking_delta`/`signature_delta` into thinking); nothing
 * after `message_stop`. Blocks still open at `message_stop` are closed there: the API does that
 * when `max_tokens` cuts a block off. Unknown event and delta types are skipped, so new API
 * features don't break old agents.
 *
 * Blocks are kept as they came: thinking with its signature untouched, `redacted_thinking`,
 * server-tool blocks and unknown blocks as their `content_block_start` carried them.
 *
 * @example
 * const accumulator = new MessageAccumulator();
 * for await (const event of stream) {
 *   const step = accumulator.apply(event);
 *   if (!step.ok) return step;
 *   if (step.delta) onEvent(step.delta);
 * }
 * return accumulator.finish();
 */
export class MessageAccumulator {
  private phase: Phase = { name: 'awaiting_message_start' };
  private eventCount = 0;

  /**
   * Applies one stream event.
   *
   * @example
   * accumulator.apply({ type: 'message_stop' });
   */
  apply(event: RawMessageStreamEvent): AccumulatorStep {
    this.eventCount += 1;
    const phase = this.phase;
    if (phase.name === 'complete') return protocolError(`${event.type} after message_stop`);
    if (phase.name === 'awaiting_message_start') {
      if (event.type !== 'message_start')
        return protocolError(`${event.type} before message_start`);
      return this.startMessage(event.message);
    }
    switch (event.type) {
      case 'message_start':
        return protocolError('a second message_start');
      case 'content_block_start':
        return startBlock(phase.blocks, event.index, event.content_block);
      case 'content_block_delta':
        return applyDelta(phase.blocks, event.index, event.delta);
      case 'content_block_stop':
        return stopBlock(phase.blocks, event.index);
      case 'message_delta':
        phase.stopReason = event.delta.stop_reason ?? phase.stopReason;
        phase.usage = mergeUsage(phase.usage, event.usage);
        phase.facts = updateFacts(phase.facts, asRecord(event.delta));
        return { ok: true };
      case 'message_stop':
        this.phase = {
          name: 'complete',
          response: finalize(phase.blocks, phase.stopReason, phase.usage, phase.facts),
        };
        return { ok: true };
      default:
        return { ok: true };
    }
  }

  /**
   * The response, once `message_stop` has arrived; otherwise a `network` error saying where the
   * stream broke off (the connection ended early, which a retry may cure).
   *
   * @example
   * const outcome = accumulator.finish();
   */
  finish(): AccumulatorOutcome {
    const phase = this.phase;
    switch (phase.name) {
      case 'complete':
        return recordable(phase.response);
      case 'awaiting_message_start':
        return {
          ok: false,
          error: {
            kind: 'network',
            message: `the response stream ended before message_start (after ${this.eventCount} events)`,
          },
        };
      case 'streaming': {
        const open = phase.blocks.filter((block) => block.status === 'open').length;
        return {
          ok: false,
          error: {
            kind: 'network',
            message: `the response stream ended before message_stop (after ${this.eventCount} events, ${phase.blocks.length} content blocks started, ${open} still open)`,
          },
        };
      }
    }
  }

  private startMessage(message: unknown): AccumulatorStep {
    const record = asRecord(message);
    const blocks: BlockInProgress[] = [];
    // The API starts with empty content; anything already there is kept, as stopped blocks.
    const initial: unknown[] = Array.isArray(record?.content) ? record.content : [];
    for (const value of initial) {
      const block = asBlock(value);
      if (block === undefined)
        return protocolError('message_start carries a malformed content block');
      blocks.push({ kind: 'opaque', status: 'stopped', start: block });
    }
    this.phase = {
      name: 'streaming',
      blocks,
      usage: asRecord(record?.usage),
      stopReason: undefined,
      facts: updateFacts(idAndModel(record), record),
    };
    return { ok: true };
  }
}

function startBlock(blocks: BlockInProgress[], index: number, value: unknown): AccumulatorStep {
  if (index !== blocks.length) {
    return protocolError(`content_block_start for block ${index}, expected block ${blocks.length}`);
  }
  const start = asBlock(value);
  if (start === undefined) return protocolError(`content_block_start ${index} has no block type`);
  if (start.type === 'text') {
    blocks.push({
      kind: 'text',
      status: 'open',
      start,
      parts: [],
      citations: [],
    });
    return { ok: true };
  }
  if (start.type === 'thinking') {
    blocks.push({
      kind: 'thinking',
      status: 'open',
      start,
      parts: [],
      signature: undefined,
    });
    return { ok: true };
  }
  if (!('input' in start)) {
    blocks.push({ kind: 'opaque', status: 'open', start });
    return { ok: true };
  }
  if (start.type !== 'tool_use') {
    blocks.push({
      kind: 'tool_input',
      status: 'open',
      start,
      fragments: [],
      localCall: undefined,
    });
    return { ok: true };
  }
  const id = typeof start.id === 'string' ? start.id : undefined;
  const name = typeof start.name === 'string' ? start.name : undefined;
  if (id === undefined || name === undefined) {
    return protocolError(`tool_use block ${index} has no id or name`);
  }
  blocks.push({
    kind: 'tool_input',
    status: 'open',
    start,
    fragments: [],
    localCall: { id, name },
  });
  // Announced at once, so a listener can show the call before any of its input arrives.
  return {
    ok: true,
    delta: {
      type: 'LlmToolCallDelta',
      callId: id,
      toolName: name,
      argumentsFragment: '',
    },
  };
}

function applyDelta(blocks: BlockInProgress[], index: number, value: unknown): AccumulatorStep {
  const block = blocks[index];
  if (block === undefined)
    return protocolError(`content_block_delta for block ${index}, which was never started`);
  if (block.status === 'stopped')
    return protocolError(`content_block_delta for block ${index}, which was already stopped`);
  const delta = asRecord(value);
  const deltaType = typeof delta?.type === 'string' ? delta.type : undefined;
  if (delta === undefined || deltaType === undefined)
    return protocolError(`content_block_delta ${index} has no delta type`);
  const misfit = () => protocolError(`${deltaType} for the ${block.start.type} block ${index}`);
  switch (deltaType) {
    case 'text_delta': {
      if (block.kind !== 'text') return misfit();
      const text = stringOf(delta.text);
      block.parts.push(text);
      return text === ''
        ? { ok: true }
        : { ok: true, delta: { type: 'LlmTextDelta', content: text } };
    }
    case 'citations_delta':
      if (block.kind !== 'text') return misfit();
      block.citations.push(delta.citation);
      return { ok: true };
    case 'thinking_delta':
      if (block.kind !== 'thinking') return misfit();
      block.parts.push(stringOf(delta.thinking));
      return { ok: true };
    case 'signature_delta':
      if (block.kind !== 'thinking') return misfit();
      // Replaced, not appended: the API sends the whole signature in one delta.
      block.signature = stringOf(delta.signature);
      return { ok: true };
    case 'input_json_delta': {
      if (block.kind !== 'tool_input') return misfit();
      const fragment = stringOf(delta.partial_json);
      block.fragments.push(fragment);
      if (block.localCall === undefined || fragment === '') return { ok: true };
      const { id, name } = block.localCall;
      return {
        ok: true,
        delta: {
          type: 'LlmToolCallDelta',
          callId: id,
          toolName: name,
          argumentsFragment: fragment,
        },
      };
    }
    default:
      return { ok: true };
  }
}

function stopBlock(blocks: BlockInProgress[], index: number): AccumulatorStep {
  const block = blocks[index];
  if (block === undefined)
    return protocolError(`content_block_stop for block ${index}, which was never started`);
  if (block.status === 'stopped')
    return protocolError(`a second content_block_stop for block ${index}`);
  block.status = 'stopped';
  return { ok: true };
}

/**
 * What the API says about the message besides its content and usage, kept on the response as
 * the SDK's `finalMessage()` keeps it; a field sent as `null` is left out.
 */
type MessageFacts = Pick<
  LlmResponse,
  'id' | 'model' | 'stopSequence' | 'stopDetails' | 'container'
>;

/**
 * The facts with what `message_start.message` or `message_delta.delta` says: a stop sequence
 * or stop details given (`null` included) replace the earlier ones; a container is kept until
 * another is named, as the SDK does.
 */
function updateFacts(
  facts: MessageFacts,
  fields: Record<string, unknown> | undefined,
): MessageFacts {
  if (fields === undefined) return facts;
  const next: MessageFacts = { ...facts };
  if ('stop_sequence' in fields) {
    if (typeof fields.stop_sequence === 'string') next.stopSequence = fields.stop_sequence;
    else delete next.stopSequence;
  }
  if ('stop_details' in fields) {
    const details = asRecord(fields.stop_details);
    if (details !== undefined && typeof details.type === 'string') {
      next.stopDetails = { ...details, type: details.type };
    } else {
      delete next.stopDetails;
    }
  }
  const container = asRecord(fields.container);
  if (container !== undefined && typeof container.id === 'string') {
    next.container = { ...container, id: container.id };
  }
  return next;
}

/** The message's id and model, from `message_start`. */
function idAndModel(message: Record<string, unknown> | undefined): MessageFacts {
  const facts: MessageFacts = {};
  if (typeof message?.id === 'string') facts.id = message.id;
  if (typeof message?.model === 'string') facts.model = message.model;
  return facts;
}

function finalize(
  blocks: BlockInProgress[],
  stopReason: StopReason | undefined,
  usageRecord: Record<string, unknown> | undefined,
  facts: MessageFacts,
): StreamedLlmResponse {
  const toolInputErrors: Record<string, string> = {};
  const content: ContentBlock[] = blocks.map((block) => {
    switch (block.kind) {
      case 'text': {
        const text = stringOf(block.start.text) + block.parts.join('');
        if (block.citations.length === 0) return { ...block.start, text };
        const earlier: unknown[] = Array.isArray(block.start.citations)
          ? block.start.citations
          : [];
        return {
          ...block.start,
          text,
          citations: [...earlier, ...block.citations],
        };
      }
      case 'thinking':
        return {
          ...block.start,
          thinking: stringOf(block.start.thinking) + block.parts.join(''),
          signature: block.signature ?? stringOf(block.start.signature),
        };
      case 'tool_input': {
        const parsed = parseToolInput(block.fragments.join(''), block.start.input);
        if (parsed.ok) return { ...block.start, input: parsed.input };
        if (block.localCall !== undefined) {
          toolInputErrors[block.localCall.id] = describeBadInput(block, stopReason, parsed.problem);
          return { ...block.start, input: {} };
        }
        // A server-side tool already ran on the API's side; its block is history, kept as started.
        return { ...block.start };
      }
      case 'opaque':
        return block.start;
    }
  });
  const response: StreamedLlmResponse = {
    message: { role: 'assistant', content },
  };
  if (stopReason !== undefined) response.stopReason = stopReason;
  const usage = toUsage(usageRecord);
  if (usage !== undefined) response.usage = usage;
  if (Object.keys(toolInputErrors).length > 0) response.toolInputErrors = toolInputErrors;
  return { ...response, ...facts };
}

function parseToolInput(
  json: string,
  startInput: unknown,
): { ok: true; input: unknown } | { ok: false; problem: string } {
  // No fragments (or only empty ones) means the input came whole in content_block_start.
  if (json.trim() === '') return { ok: true, input: startInput ?? {} };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return {
      ok: false,
      problem: errorMessage(error),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problem: `it is ${JSON.stringify(value)}, not a JSON object`,
    };
  }
  return { ok: true, input: value };
}

function describeBadInput(
  block: Extract<BlockInProgress, { kind: 'tool_input' }>,
  stopReason: StopReason | undefined,
  problem: string,
): string {
  const name = block.localCall?.name ?? stringOf(block.start.name);
  const cut = block.status === 'open' || stopReason === 'max_tokens';
  if (!cut) return `the input JSON for tool ${name} does not parse: ${problem}`;
  return `the input JSON for tool ${name} was cut off (stop_reason ${stopReason ?? 'missing'}) and does not parse: ${problem}`;
}

/** message_delta usage is cumulative; its null fields mean "unchanged since message_start". */
function mergeUsage(
  current: Record<string, unknown> | undefined,
  update: unknown,
): Record<string, unknown> | undefined {
  const fields = asRecord(update);
  if (fields === undefined) return current;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

function toUsage(record: Record<string, unknown> | undefined): Usage | undefined {
  if (record === undefined) return undefined;
  const { input_tokens, output_tokens } = record;
  if (typeof input_tokens !== 'number' || typeof output_tokens !== 'number') return undefined;
  return { ...record, input_tokens, output_tokens };
}

/**
 * The response as the chart will take it: checked and copied as plain JSON the way
 * `LlmCompleted` events are, so a value the wire format allows but a snapshot cannot hold (a
 * number too large for a double parses as `Infinity`) is a server error, not a broken context.
 */
function recordable(response: StreamedLlmResponse): AccumulatorOutcome {
  const checked = checkEvent({ type: 'LlmCompleted', response });
  if (checked.ok && checked.event.type === 'LlmCompleted') {
    return { ok: true, response: checked.event.response };
  }
  const problem = checked.ok ? 'it is not a response' : checked.problem;
  return {
    ok: false,
    error: { kind: 'server', message: `the response cannot be recorded: ${problem}` },
  };
}

function protocolError(detail: string): { ok: false; error: LlmError } {
  return {
    ok: false,
    error: {
      kind: 'server',
      message: `the response stream broke the Messages API protocol: ${detail}`,
    },
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return value as Record<string, unknown>;
}

function asBlock(value: unknown): OtherBlock | undefined {
  const record = asRecord(value);
  if (record === undefined || typeof record.type !== 'string') return undefined;
  return { ...record, type: record.type };
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
