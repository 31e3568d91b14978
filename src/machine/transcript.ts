import type { AgentContext, ToolRun } from './context.js';
import { outputToolDefinition } from './outputSpec.js';
import { ENDING_TEXT, errorOutcome } from './toolRuns.js';
import type {
  ContentBlock,
  LlmRequest,
  Message,
  ToolCall,
  ToolOutcome,
  ToolResultBlock,
  ToolUseBlock,
} from './messages.js';

/**
 * The model request for the current transcript. It shares the transcript array and the tool
 * definitions with the context (no copy): neither ever changes.
 *
 * @example
 * const request = buildRequest(core.context);
 * request.messages === core.context.messages; // true
 */
export function buildRequest(
  context: Pick<AgentContext, 'messages' | 'config'> &
    Partial<Pick<AgentContext, 'containerId' | 'output'>>,
): LlmRequest {
  const { config } = context;
  const request: LlmRequest = {
    model: config.model,
    maxTokens: config.maxTokens,
    messages: context.messages,
  };
  if (config.system !== undefined) request.system = config.system;
  const form = context.output?.form;
  if (form === undefined || form.via === 'format') {
    if (config.toolDefinitions.length > 0) request.tools = config.toolDefinitions;
  } else {
    // Last, so the tools before it stay the cached prefix they were.
    request.tools = [...config.toolDefinitions, outputToolDefinition(form)];
    request.output = { name: form.name, schema: form.schema };
  }
  if (typeof context.containerId === 'string') request.container = context.containerId;
  if (form?.via === 'format') {
    request.output = { name: form.name, schema: form.schema, via: 'format' };
    // The API's own format, beside what the configuration sets there (the effort).
    const fields = config.requestFields ?? {};
    const outputConfig = (fields.output_config ?? {}) as Record<string, unknown>;
    request.fields = {
      ...fields,
      output_config: { ...outputConfig, format: { type: 'json_schema', schema: form.schema } },
    };
  } else if (config.requestFields !== undefined) {
    request.fields = config.requestFields;
  }
  // Left out, the policy is the default ('auto').
  if (config.promptCache === 'off') request.promptCache = 'off';
  return request;
}

/**
 * The tool calls of an assistant message, in the order the model wrote them.
 *
 * @example
 * toolCallsOf({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] });
 * // [{ id: 't1', name: 'ls', input: {} }]
 */
export function toolCallsOf(message: Message): ToolCall[] {
  if (typeof message.content === 'string') return [];
  const calls: ToolCall[] = [];
  for (const block of message.content) {
    if (isToolUse(block)) calls.push({ id: block.id, name: block.name, input: block.input });
  }
  return calls;
}

/**
 * The `tool_result` block that answers one call.
 *
 * @example
 * toolResultBlock('t1', { status: 'error', error: { message: 'no such file' } });
 * // { type: 'tool_result', tool_use_id: 't1', content: 'no such file', is_error: true }
 */
export function toolResultBlock(callId: string, outcome: ToolOutcome): ToolResultBlock {
  if (outcome.status === 'error') {
    return {
      type: 'tool_result',
      tool_use_id: callId,
      content: outcome.error.message,
      is_error: true,
    };
  }
  if ('content' in outcome) {
    // The API refuses an empty list of blocks; no blocks is an empty answer.
    const content = outcome.content.length > 0 ? outcome.content : '';
    return { type: 'tool_result', tool_use_id: callId, content };
  }
  const { output } = outcome;
  const content = typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
  return { type: 'tool_result', tool_use_id: callId, content };
}

/**
 * The user message that answers every call of a response, in the order the model asked for
 * them (not the order they finished). The chart builds it once every call has its outcome.
 *
 * @example
 * toolResultsMessage(core.context.toolRuns);
 */
export function toolResultsMessage(runs: readonly ToolRun[]): Message {
  return {
    role: 'user',
    content: runs.map((run) => {
      const block = toolResultBlock(run.call.id, run.outcome ?? NO_OUTCOME);
      const edited = run.edited ? withEditNote(block, run.call.input) : block;
      return run.notes === undefined ? edited : withNotes(edited, run.notes);
    }),
  };
}

/** The result with what hooks added for the model after it. */
function withNotes(block: ToolResultBlock, notes: readonly string[]): ToolResultBlock {
  const text = notes.join('\n');
  const { content } = block;
  if (typeof content === 'string') {
    return { ...block, content: content === '' ? text : `${content}\n\n${text}` };
  }
  return { ...block, content: [...content, { type: 'text', text }] };
}

/**
 * The result of a call a person approved with an input of their own, saying so first: the model
 * asked for something else, and must not take the result for what it asked.
 */
function withEditNote(block: ToolResultBlock, input: unknown): ToolResultBlock {
  const note = `The user edited this call's input before it ran; it ran with ${JSON.stringify(input)}.`;
  const { content } = block;
  if (typeof content === 'string') {
    return { ...block, content: content === '' ? note : `${note}\n\n${content}` };
  }
  return { ...block, content: [{ type: 'text', text: note }, ...content] };
}

const NO_OUTCOME: ToolOutcome = {
  status: 'error',
  error: { message: 'no result was recorded for this call' },
};

/**
 * The assistant message that keeps text streamed before an interrupt, or `null` if none came.
 *
 * @example
 * partialAssistantMessage('I will'); // { role: 'assistant', content: [{ type: 'text', text: 'I will' }] }
 */
export function partialAssistantMessage(text: string): Message | null {
  // The API rejects text blocks that hold only whitespace.
  if (text.trim().length === 0) return null;
  return { role: 'assistant', content: [{ type: 'text', text }] };
}

/**
 * The problems that would make the Messages API reject this transcript, as sentences; an empty
 * list when it is valid. Checks that every `tool_use` is answered by exactly one `tool_result` in
 * the next (user) message, that every `tool_result` answers a call of the message just before
 * it, and that no call id is used twice.
 *
 * @example
 * findTranscriptViolations(core.context.messages); // [] when the transcript is valid
 */
export function findTranscriptViolations(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  const seenCallIds = new Set<string>();
  let openCalls: string[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const blocks = typeof message.content === 'string' ? [] : message.content;
    const results = blocks.filter(isToolResult);
    if (results.length > 0 && message.role !== 'user') {
      problems.push(`message ${index}: tool_result blocks must be in a user message`);
    }
    const answered = new Set<string>();
    for (const result of results) {
      if (!openCalls.includes(result.tool_use_id)) {
        problems.push(
          `message ${index}: tool_result for '${result.tool_use_id}' answers no tool_use of the message before it`,
        );
      } else if (answered.has(result.tool_use_id)) {
        problems.push(`message ${index}: tool_use '${result.tool_use_id}' is answered twice`);
      }
      answered.add(result.tool_use_id);
    }
    for (const id of openCalls) {
      if (!answered.has(id)) {
        problems.push(
          `message ${index}: tool_use '${id}' of message ${index - 1} has no tool_result`,
        );
      }
    }
    openCalls = [];
    if (message.role === 'assistant') {
      for (const block of blocks) {
        if (!isToolUse(block)) continue;
        if (seenCallIds.has(block.id))
          problems.push(`message ${index}: tool_use id '${block.id}' is used twice`);
        seenCallIds.add(block.id);
        openCalls.push(block.id);
      }
    }
  }
  for (const id of openCalls) {
    problems.push(`message ${messages.length - 1}: tool_use '${id}' has no tool_result yet`);
  }
  return problems;
}

/**
 * A transcript given to start from (`messages`: a crashed loop's, another tool's) with every
 * `tool_use` answered: a call with no `tool_result` in the next message gets an error result
 * saying so ("may or may not have taken effect"), added to that user message before its other
 * blocks, or in a user message of its own. `answered` lists the calls answered here; `messages`
 * is the array given when there were none.
 *
 * @example
 * const { messages, answered } = answerOpenToolUses(transcript);
 * if (answered.length > 0) log.warn(`answered ${answered.join(', ')} as interrupted`);
 */
export function answerOpenToolUses(messages: readonly Message[]): {
  messages: readonly Message[];
  answered: string[];
} {
  const answered: string[] = [];
  const repaired: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    repaired.push(message);
    if (message.role !== 'assistant') continue;
    const next = messages[index + 1];
    const nextBlocks = next?.role !== 'user' ? [] : blocksOf(next);
    const results = new Set(nextBlocks.filter(isToolResult).map((block) => block.tool_use_id));
    const open = toolCallsOf(message).filter((call) => !results.has(call.id));
    if (open.length === 0) continue;
    const unanswered = errorOutcome(ENDING_TEXT.unansweredInTranscript);
    const added = open.map((call) => toolResultBlock(call.id, unanswered));
    answered.push(...open.map((call) => call.id));
    if (next?.role === 'user') {
      // tool_result blocks go first in a user message.
      repaired.push({ role: 'user', content: [...added, ...nextBlocks] });
      index++;
    } else {
      repaired.push({ role: 'user', content: added });
    }
  }
  return answered.length === 0 ? { messages, answered } : { messages: repaired, answered };
}

/**
 * A message's content as blocks: a string is one text block.
 *
 * @example
 * blocksOf({ role: 'user', content: 'hi' }); // [{ type: 'text', text: 'hi' }]
 */
export function blocksOf(message: Message): ContentBlock[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : message.content;
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}
