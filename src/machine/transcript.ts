import type { AgentContext, ToolRun } from './context.js';
import type {
  ContentBlock,
  LlmRequest,
  Message,
  ToolCall,
  ToolOutcome,
  ToolResultBlock,
  ToolUseBlock,
} from './types.js';

/**
 * Arrays the chart allocated itself: the only ones it appends to in place. An array that came
 * from outside (the caller's initial messages, a restored snapshot, the shared frozen empty list)
 * is copied once, on the first append, and never written to.
 */
const ownLogs = new WeakSet<Message[]>();

/**
 * The transcript with one message appended, in O(1) whatever its length.
 *
 * Successive snapshots share one append-only array (the log), and each snapshot's
 * `messageCount` says how much of it is its own. Appending to the newest snapshot pushes onto
 * the log; appending to an older one (a fork: a transition taken again from a kept snapshot, or
 * after a rejected one) copies its own prefix first, so every line of history stays exact.
 *
 * @example
 * const next = appendToTranscript(core.context, { role: 'user', content: 'and now?' });
 * next.messageCount === core.context.messageCount + 1; // true
 */
export function appendToTranscript(
  context: Pick<AgentContext, 'messages' | 'messageCount'>,
  message: Message,
): Pick<AgentContext, 'messages' | 'messageCount'> {
  const { messages, messageCount } = context;
  let log = messages;
  if (messages.length !== messageCount || !ownLogs.has(messages)) {
    log = messages.slice(0, messageCount);
    ownLogs.add(log);
  }
  log.push(message);
  return { messages: log, messageCount: messageCount + 1 };
}

/**
 * A copy of `messages` the chart may append to in place from the first message on. For a host
 * that starts an actor with these messages as `input`: XState keeps the input for the actor's
 * life, so handing it the log itself means one array per agent, not two.
 *
 * @example
 * createActor(machine, { input: { messages: transcriptLogFrom(loaded) } });
 */
export function transcriptLogFrom(messages: readonly Message[]): Message[] {
  const log = messages.slice();
  ownLogs.add(log);
  return log;
}

/**
 * The messages of one snapshot, exactly: the log itself for the newest snapshot (no copy), its
 * own prefix for an older one.
 *
 * @example
 * transcriptOf(core.context) === core.context.messages; // true for the current snapshot
 */
export function transcriptOf(context: Pick<AgentContext, 'messages' | 'messageCount'>): Message[] {
  const { messages, messageCount } = context;
  return messages.length === messageCount ? messages : messages.slice(0, messageCount);
}

/**
 * The model request for the current transcript. It shares the transcript array and the tool
 * definitions with the context (no copy): send or serialise it before the agent takes its next
 * event, since later messages are appended to the same array.
 *
 * @example
 * const request = buildRequest(core.context);
 * request.messages === core.context.messages; // true
 */
export function buildRequest(
  context: Pick<AgentContext, 'messages' | 'messageCount' | 'config'>,
): LlmRequest {
  const { config } = context;
  const request: LlmRequest = {
    model: config.model,
    maxTokens: config.maxTokens,
    messages: transcriptOf(context),
  };
  if (config.system !== undefined) request.system = config.system;
  if (config.toolDefinitions.length > 0) request.tools = config.toolDefinitions;
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
  const { output } = outcome;
  const content = typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
  return { type: 'tool_result', tool_use_id: callId, content };
}

/**
 * The user message that answers every call of a response, in the order the model asked for
 * them (not the order they finished). A call without an outcome gets `fallback`.
 *
 * @example
 * toolResultsMessage(core.context.toolRuns, { status: 'error', error: { message: 'interrupted' } });
 */
export function toolResultsMessage(runs: readonly ToolRun[], fallback: ToolOutcome): Message {
  return {
    role: 'user',
    content: runs.map((run) => toolResultBlock(run.call.id, run.outcome ?? fallback)),
  };
}

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

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}
