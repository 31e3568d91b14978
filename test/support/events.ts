/** Builders for the chart's events, so tests read as the scenario they describe. */
import type {
  AgentAction,
  AgentEvent,
  ContentBlock,
  LlmErrorKind,
  LlmResponse,
  StopReason,
  ToolCall,
} from '../../src/index.js';

/** The actions of one type, narrowed. */
export function actionsOf<T extends AgentAction['type']>(
  actions: readonly AgentAction[],
  type: T,
): Array<Extract<AgentAction, { type: T }>> {
  return actions.filter(
    (action): action is Extract<AgentAction, { type: T }> => action.type === type,
  );
}

export const userInput = (content: string): AgentEvent => ({
  type: 'UserInput',
  message: { role: 'user', content },
});

export const textDelta = (content: string): AgentEvent => ({ type: 'LlmTextDelta', content });

export function response(
  text: string | null,
  calls: ToolCall[] = [],
  stopReason?: StopReason,
): LlmResponse {
  const content: ContentBlock[] = [];
  if (text !== null) content.push({ type: 'text', text });
  for (const call of calls) content.push({ type: 'tool_use', ...call });
  return {
    message: { role: 'assistant', content },
    stopReason: stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
  };
}

export const completed = (
  text: string | null,
  calls: ToolCall[] = [],
  stopReason?: StopReason,
): AgentEvent => ({
  type: 'LlmCompleted',
  response: response(text, calls, stopReason),
});

export const call = (id: string, name: string, input: unknown = {}): ToolCall => ({
  id,
  name,
  input,
});

export const toolOk = (callId: string, output: unknown = 'ok'): AgentEvent => ({
  type: 'ToolCompleted',
  callId,
  outcome: { status: 'success', output },
});

export const toolFailed = (callId: string, message = 'boom'): AgentEvent => ({
  type: 'ToolCompleted',
  callId,
  outcome: { status: 'error', error: { message } },
});

export const llmError = (
  kind: LlmErrorKind,
  message = `${kind} error`,
  retryAfterMs?: number,
): AgentEvent => ({
  type: 'LlmError',
  error: retryAfterMs === undefined ? { kind, message } : { kind, message, retryAfterMs },
});

export const hookDone = (actionTaken = true): AgentEvent => ({
  type: 'PostToolsHookCompleted',
  actionTaken,
});
export const retryFired: AgentEvent = { type: 'RetryTimeoutFired' };
export const shutdown: AgentEvent = { type: 'ShutdownRequested' };
export const interrupt: AgentEvent = { type: 'Interrupt' };

/** What a response without usage reports on the default model, which has no price. */
export function usageReported(
  options: { turnCalls?: number; sessionCalls?: number } = {},
): AgentAction {
  const none = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  return {
    type: 'UsageReported',
    model: 'claude-sonnet-5-5',
    call: { ...none, costUsd: null },
    turn: { ...none, calls: options.turnCalls ?? 1, costUsd: null },
    session: { ...none, calls: options.sessionCalls ?? options.turnCalls ?? 1, costUsd: null },
  };
}
