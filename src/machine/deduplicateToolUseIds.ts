/**
 * Tool-use ids the chart can rely on. Each tool call is tracked by its `tool_use` id (its run, the
 * child actor that executes it, its `ToolCompleted`), and the Messages API rejects a request in
 * which one id appears twice. The API never sends a duplicate, but a proxy or a replayed stream
 * can; so the recorded response gets ids that are unique in the whole transcript, before any
 * call is tracked.
 */
import type { ToolRun } from './context.js';
import { errorOutcome, toolRunsOf, updateRun } from './toolRuns.js';
import type { ContentBlock, LlmResponse, Message, ToolUseBlock } from './messages.js';

/**
 * The response as the chart records it, and the runs of its tool calls.
 *
 * @example
 * const { response, toolRuns } = deduplicateToolUseIds(event.response, context.messages);
 */
export interface DeduplicatedResponse {
  response: LlmResponse;
  toolRuns: ToolRun[];
}

/**
 * Gives every `tool_use` of `response` an id no earlier block of the response or the transcript
 * has, and returns the runs of its calls. A call whose id is taken gets `<id>_2` (or `_3`, … the
 * first free one):
 *
 * - an id used in an earlier message (a proxy that numbers each response's calls from zero):
 *   the call is renamed and runs as usual;
 * - an id used by an earlier call of the same response: the two cannot be told apart (it may be
 *   the same call sent twice), so the later one is renamed and not run; its `tool_result` tells
 *   the model what happened and to ask again if it meant a second call.
 *
 * A response without a taken id is returned as it is (the same object).
 *
 * @example
 * const twice = { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } } as const;
 * const { response, toolRuns } = deduplicateToolUseIds(
 *   { message: { role: 'assistant', content: [twice, twice] } },
 *   [],
 * );
 * // the second block now has id 't1_2'; its run is done with an error outcome saying why
 */
export function deduplicateToolUseIds(
  response: LlmResponse,
  transcript: readonly Message[],
): DeduplicatedResponse {
  const { content } = response.message;
  if (typeof content === 'string' || !content.some(isToolUse)) {
    return { response, toolRuns: toolRunsOf(response) };
  }
  const ids = content.filter(isToolUse).map((block) => block.id);
  // The usual response reuses no id, and telling so needs only its own ids looked up (a long
  // transcript's ids are collected only when one is renamed).
  if (new Set(ids).size === ids.length && !namesAnyId(transcript, new Set(ids))) {
    return { response, toolRuns: toolRunsOf(response) };
  }
  const earlier = toolUseIdsOf(transcript);
  const taken = new Set([...earlier, ...ids]);
  const inResponse = new Set<string>();
  const inputErrors = { ...response.toolInputErrors };
  const notRun = new Map<string, string>();
  let renamed = false;
  const blocks = content.map((block): ContentBlock => {
    if (!isToolUse(block)) return block;
    const { id } = block;
    const repeated = inResponse.has(id);
    inResponse.add(id);
    if (!repeated && !earlier.has(id)) return block;
    const fresh = freeId(id, taken);
    taken.add(fresh);
    renamed = true;
    if (repeated) {
      notRun.set(fresh, notRunMessage(id, fresh));
    } else if (Object.hasOwn(inputErrors, id)) {
      // The first call with this id is the one the accumulator's reason was about.
      inputErrors[fresh] = inputErrors[id]!;
      delete inputErrors[id];
    }
    return { ...block, id: fresh };
  });
  if (!renamed) return { response, toolRuns: toolRunsOf(response) };
  const recorded: LlmResponse = { ...response, message: { ...response.message, content: blocks } };
  if (response.toolInputErrors !== undefined) recorded.toolInputErrors = inputErrors;
  let toolRuns = toolRunsOf(recorded);
  for (const [id, message] of notRun) {
    toolRuns = updateRun(toolRuns, id, { status: 'done', outcome: errorOutcome(message) });
  }
  return { response: recorded, toolRuns };
}

function notRunMessage(id: string, fresh: string): string {
  return (
    `not run: this call repeated the tool_use id '${id}' of an earlier call in the same ` +
    `response, so the two could not be told apart; its id was changed to '${fresh}'. ` +
    'Call the tool again if you meant a second call.'
  );
}

/** `<id>_2`, `<id>_3`, …: the first that is not taken. */
function freeId(id: string, taken: ReadonlySet<string>): string {
  for (let suffix = 2; ; suffix++) {
    const candidate = `${id}_${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Every id a `tool_use` or `tool_result` of the transcript names. */
function toolUseIdsOf(transcript: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of transcript) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      const id = idNamedBy(block);
      if (id !== undefined) ids.add(id);
    }
  }
  return ids;
}

/** Whether a `tool_use` or `tool_result` of the transcript names one of `ids`. */
function namesAnyId(transcript: readonly Message[], ids: ReadonlySet<string>): boolean {
  for (const message of transcript) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      const id = idNamedBy(block);
      if (id !== undefined && ids.has(id)) return true;
    }
  }
  return false;
}

function idNamedBy(block: ContentBlock): string | undefined {
  if (isToolUse(block)) return block.id;
  return block.type === 'tool_result' && typeof block.tool_use_id === 'string'
    ? block.tool_use_id
    : undefined;
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}
