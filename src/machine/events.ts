/**
 * The events the chart takes, and who sends each: the caller (a person, or the service around the
 * agent), one of the chart's invoked actors, or the store a session is restored from.
 */
import type { AgentActorName } from './actorNames.js';
import type { UserAnswers } from './askUser.js';
import type { PermissionMode, ToolSpec } from './config.js';
import type { LlmError, LlmResponse, Message, ToolOutcome } from './messages.js';
import type { OutputSpec } from './outputSpec.js';
import type { TokenUsage } from './usage.js';

/**
 * The user sent a message. During a turn it is queued and starts the next turn.
 *
 * @example
 * const event: UserInputEvent = { type: 'UserInput', message: { role: 'user', content: 'hi' } };
 */
export interface UserInputEvent {
  type: 'UserInput';
  message: Message;
  /**
   * The form the final answer of the turn this input starts must take, instead of the
   * configuration's `output`. Taken only when the input starts a turn at once (the agent is
   * idle): input that would wait in the queue with one is refused.
   */
  output?: OutputSpec;
}

/**
 * An attempt of the model call is starting: text streamed by an earlier attempt of the same call
 * (one cut off by a restart, say) is dropped, so every attempt's text starts afresh. The `llm`
 * actor sends it before the request goes out; a caller in pure mode may leave it out.
 */
export interface LlmStartedEvent {
  type: 'LlmStarted';
}

/**
 * A piece of streamed text from the model. A producer may merge consecutive pieces into one
 * event: the chart only appends them.
 *
 * @example
 * const event: LlmTextDeltaEvent = { type: 'LlmTextDelta', content: 'Hel' };
 */
export interface LlmTextDeltaEvent {
  type: 'LlmTextDelta';
  content: string;
}

/**
 * A piece of a streamed tool call's JSON input. Pieces of one call may be merged into one event:
 * the chart only appends them.
 *
 * @example
 * const event: LlmToolCallDeltaEvent = { type: 'LlmToolCallDelta', callId: 'toolu_1', toolName: 'bash', argumentsFragment: '{"comm' };
 */
export interface LlmToolCallDeltaEvent {
  type: 'LlmToolCallDelta';
  callId: string;
  toolName: string;
  argumentsFragment: string;
}

/** The events a model call streams while its response comes in. */
export type LlmStreamDelta = LlmTextDeltaEvent | LlmToolCallDeltaEvent;

/**
 * The model call finished.
 *
 * @example
 * const event: LlmCompletedEvent = {
 *   type: 'LlmCompleted',
 *   response: { message: { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }, stopReason: 'end_turn' },
 * };
 */
export interface LlmCompletedEvent {
  type: 'LlmCompleted';
  response: LlmResponse;
}

/**
 * The model call failed.
 *
 * @example
 * const event: LlmErrorEvent = { type: 'LlmError', error: { kind: 'overloaded', message: 'Overloaded', status: 529 } };
 */
export interface LlmErrorEvent {
  type: 'LlmError';
  error: LlmError;
}

/** A running tool reported progress (shown to the user; the chart only records it). */
export interface ToolProgressEvent {
  type: 'ToolProgress';
  callId: string;
  progress: unknown;
}

/**
 * A tool call finished, successfully or not.
 *
 * @example
 * const event: ToolCompletedEvent = { type: 'ToolCompleted', callId: 'toolu_1', outcome: { status: 'success', output: 'ok' } };
 */
export interface ToolCompletedEvent {
  type: 'ToolCompleted';
  callId: string;
  outcome: ToolOutcome;
  /**
   * What the call's model calls used and cost: a subagent's, added to this agent's usage (its
   * tokens and cost, not its count of calls, which `maxTurns` reads).
   */
  usage?: TokenUsage & { costUsd: number | null };
}

/**
 * The post-tools hook finished. `actionTaken` says whether it did something (made a commit);
 * `error`, that it failed and was skipped (hooks fail open: the turn goes on).
 *
 * @example
 * const done: PostToolsHookCompletedEvent = { type: 'PostToolsHookCompleted', actionTaken: true };
 * const failed: PostToolsHookCompletedEvent = { type: 'PostToolsHookCompleted', actionTaken: false, error: 'git: index.lock exists' };
 */
export interface PostToolsHookCompletedEvent {
  type: 'PostToolsHookCompleted';
  actionTaken: boolean;
  error?: string;
}

/** The backoff before retrying a failed model call is over. */
export interface RetryTimeoutFiredEvent {
  type: 'RetryTimeoutFired';
}

/** Stop the agent. Accepted in every state; `ShuttingDown` is final. */
export interface ShutdownRequestedEvent {
  type: 'ShutdownRequested';
}

/**
 * Cancel the current turn and keep the agent: partial text is kept, open tool calls are answered
 * with an "interrupted" error, and the next queued input (if any) starts a new turn.
 */
export interface InterruptEvent {
  type: 'Interrupt';
}

/**
 * A person's answer to a `RequestApproval`. With `remember`, the decision holds for later calls
 * of the same tool.
 *
 * @example
 * const event: ToolApprovalEvent = { type: 'ToolApproval', callId: 'toolu_1', decision: 'allow', remember: true };
 */
export interface ToolApprovalEvent {
  type: 'ToolApproval';
  callId: string;
  decision: 'allow' | 'deny';
  /** Apply the decision to later calls of the same tool too (not to an edited input). */
  remember?: boolean;
  /**
   * With `deny`: why, in the person's words. The model reads it with the refusal, so it can do
   * what was wanted instead.
   */
  reason?: string;
  /**
   * With `allow`: the input to run the call with instead of the model's (a person corrected a
   * path, narrowed a command). The tool checks it against its schema as it would the model's,
   * and the model is told the call ran with an edited input, and which.
   */
  input?: Record<string, unknown>;
}

/**
 * The user's answers to the questions of an `ask_user` call (an `AskUser` action), one per
 * question in the order asked: a choice's label or free text, several for a multi-select
 * question, `''` for no answer. They become the call's result.
 *
 * @example
 * const event: UserAnswerEvent = { type: 'UserAnswer', callId: 'toolu_1', answers: ['PostgreSQL', ['Search', 'Export']] };
 */
export interface UserAnswerEvent {
  type: 'UserAnswer';
  callId: string;
  answers: UserAnswers;
}

/**
 * What the `preToolUse` hook decided about a call (after a `RunPreToolUseHook`): `allow`, `deny`
 * (with a `reason` the model reads), `ask` (wait for a person's approval) or no `decision` (the
 * permissions decide alone); with `input`, the call runs with that input instead of the model's
 * (and the model is told); with `context`, a note the model reads with the call's result. An
 * `error` says the hook failed (threw, or timed out): the call is denied, since a hook that
 * guards calls fails closed, and the user is told.
 *
 * @example
 * const event: PreToolUseDecisionEvent = { type: 'PreToolUseDecision', callId: 'toolu_1', decision: 'deny', reason: 'no writes under migrations/' };
 */
export interface PreToolUseDecisionEvent {
  type: 'PreToolUseDecision';
  callId: string;
  decision?: 'allow' | 'deny' | 'ask';
  reason?: string;
  input?: Record<string, unknown>;
  context?: string;
  error?: string;
}

/**
 * What the `postToolUse` hook made of a call that ran (after a `RunPostToolUseHook`): `context`,
 * a note the model reads after the result; `message`, for a call that failed, the error the
 * model reads instead of the tool's own. An `error` says the hook failed: the result stands as it
 * was (this hook fails open), and the user is told.
 *
 * @example
 * const event: PostToolUseResultEvent = { type: 'PostToolUseResult', callId: 'toolu_1', context: 'lint: 0 problems' };
 */
export interface PostToolUseResultEvent {
  type: 'PostToolUseResult';
  callId: string;
  context?: string;
  message?: string;
  error?: string;
}

/**
 * What the `userPromptSubmit` hook made of the prompt at the head of the queue (after a
 * `RunUserPromptSubmitHook`): `decision: 'block'` drops it (the model never sees it; `reason`
 * tells the user why); otherwise the turn starts, with `context`, a note the model reads after
 * the prompt. An `error` says the hook failed: the prompt goes on as it was (this hook fails
 * open), and the user is told.
 *
 * @example
 * const event: UserPromptSubmitDecisionEvent = { type: 'UserPromptSubmitDecision', context: 'branch: main, 2 files changed' };
 */
export interface UserPromptSubmitDecisionEvent {
  type: 'UserPromptSubmitDecision';
  decision?: 'block';
  reason?: string;
  context?: string;
  error?: string;
}

/**
 * What the `stop` hook made of a response that would end the turn (after a `RunStopHook`):
 * `decision: 'continue'` has the turn go on, with `reason` as the model's next instruction
 * (once per turn); otherwise the turn ends. An `error` says the hook failed: the turn ends as it
 * would have (this hook fails open), and the user is told.
 *
 * @example
 * const event: StopDecisionEvent = { type: 'StopDecision', decision: 'continue', reason: 'the tests still fail; run them and fix what fails' };
 */
export interface StopDecisionEvent {
  type: 'StopDecision';
  decision?: 'continue';
  reason?: string;
  error?: string;
}

/**
 * What the `preCompact` hook made of a compaction about to start (after a `RunPreCompactHook`):
 * `decision: 'block'` vetoes it (`reason` says why; the request goes out whole), `instructions`
 * adds what the summary must keep. An `error` says the hook failed: the compaction goes on as it
 * would have (this hook fails open), and the user is told.
 *
 * @example
 * const event: PreCompactDecisionEvent = { type: 'PreCompactDecision', instructions: 'Keep the list of failing tests.' };
 */
export interface PreCompactDecisionEvent {
  type: 'PreCompactDecision';
  decision?: 'block';
  reason?: string;
  instructions?: string;
  error?: string;
}

/**
 * Compact the transcript now, between turns: the model summarises all but the latest messages
 * (see `AgentConfig.compaction`), with `instructions` added to what the summary must keep.
 * Taken only while the agent waits for input.
 *
 * @example
 * const event: CompactEvent = { type: 'Compact', instructions: 'Keep the open questions.' };
 */
export interface CompactEvent {
  type: 'Compact';
  instructions?: string;
}

/**
 * Change the permission mode, at any time. Calls already waiting for approval are re-checked.
 *
 * @example
 * const event: SetPermissionModeEvent = { type: 'SetPermissionMode', mode: 'plan' };
 */
export interface SetPermissionModeEvent {
  type: 'SetPermissionMode';
  mode: PermissionMode;
}

/**
 * Replace the tools the model may call, at any time: an MCP server's tool list changed, a server
 * came up late, or a pure-mode caller changes tools between turns. The next model request
 * carries the new list. Tool calls the model already made keep their course: a call running or
 * approved goes on (the tool's runner answers it as an unknown tool if its tool is gone), and a
 * call waiting for approval keeps waiting. Specs are checked as `tools` in the config is, and
 * more strictly: names the API accepts, unique, the flags booleans. Like the rest of the
 * configuration, the list is not part of a snapshot: an agent restored with
 * `fromSnapshot(snapshot, config)` runs with `config.tools` until it is told again.
 *
 * @example
 * const event: SetToolsEvent = {
 *   type: 'SetTools',
 *   tools: [
 *     { name: 'read_file', mutating: false },
 *     { name: 'mcp__github__create_issue', mutating: true, description: 'Open an issue', inputSchema: { type: 'object' } },
 *   ],
 * };
 */
export interface SetToolsEvent {
  type: 'SetTools';
  tools: ToolSpec[];
}

/**
 * The grace period after an interrupt is over: tool calls that have not reported how they ended
 * are answered as possibly having taken effect.
 */
export interface ToolGraceExpiredEvent {
  type: 'ToolGraceExpired';
}

/**
 * The agent was restored from storage (after a restart or a crash): restart the work that was in
 * flight. The event says what is known from outside the chart; the chart decides what it means.
 * A model call is sent again; a tool call is run again if it never started, is read-only or is
 * idempotent, and is otherwise answered as possibly having taken effect; the post-tools hook
 * runs again; a retry backoff waits for what is left of it; a pending approval is asked again;
 * tool calls an interrupt was waiting for are answered with what is known.
 *
 * @example
 * const event: ResumeEvent = { type: 'Resume', startedToolCallIds: ['toolu_1'], retryElapsedMs: 900 };
 */
export interface ResumeEvent {
  type: 'Resume';
  /**
   * The tool calls known to have started before the process stopped. Omitted: every running call
   * is taken to have started (so no mutating call can run twice).
   */
  startedToolCallIds?: string[];
  /** How long the retry backoff had been waited when the process stopped (default: none of it). */
  retryElapsedMs?: number;
}

/**
 * Every event the chart accepts.
 *
 * @example
 * const events: AgentEvent[] = [
 *   { type: 'UserInput', message: { role: 'user', content: 'hi' } },
 *   { type: 'LlmTextDelta', content: 'Hello' },
 * ];
 */
export type AgentEvent =
  | UserInputEvent
  | LlmStartedEvent
  | LlmTextDeltaEvent
  | LlmToolCallDeltaEvent
  | LlmCompletedEvent
  | LlmErrorEvent
  | ToolProgressEvent
  | ToolCompletedEvent
  | PostToolsHookCompletedEvent
  | RetryTimeoutFiredEvent
  | ShutdownRequestedEvent
  | InterruptEvent
  | ToolApprovalEvent
  | UserAnswerEvent
  | PreToolUseDecisionEvent
  | PostToolUseResultEvent
  | UserPromptSubmitDecisionEvent
  | StopDecisionEvent
  | PreCompactDecisionEvent
  | CompactEvent
  | SetPermissionModeEvent
  | SetToolsEvent
  | ToolGraceExpiredEvent
  | ResumeEvent;

/** The `type` of every event the chart accepts. */
export type AgentEventType = AgentEvent['type'];

/**
 * Who sends an event: `caller` (the user or the service around the agent), one of the chart's
 * actors by name, or `store` (a restored session's `Resume`).
 */
export type EventOrigin = 'caller' | 'store' | AgentActorName;

/**
 * How the chart treats events of one type beyond its transitions:
 *
 * - `origin`: who sends them;
 * - `streamed`: part of a model call's stream. Consecutive ones of one call may be merged
 *   ({@link compactStream}), and the call's own next event (`LlmCompleted`, `LlmError`) makes them
 *   irrelevant to what follows: a session log keeps them only when something else comes first;
 * - `displayOnly`: changes nothing a stored snapshot keeps (tool progress), so a session log
 *   leaves it out.
 */
export interface EventTraits {
  origin: EventOrigin;
  streamed?: true;
  displayOnly?: true;
}

/**
 * The traits of every event type: the one place that says which events come from a caller, which
 * are part of a model call's stream, and which only show progress.
 *
 * @example
 * EVENT_TRAITS.LlmTextDelta; // { origin: 'llm', streamed: true }
 */
export const EVENT_TRAITS: Readonly<Record<AgentEventType, EventTraits>> = {
  UserInput: { origin: 'caller' },
  LlmStarted: { origin: 'llm', streamed: true },
  LlmTextDelta: { origin: 'llm', streamed: true },
  LlmToolCallDelta: { origin: 'llm', streamed: true },
  LlmCompleted: { origin: 'llm' },
  LlmError: { origin: 'llm' },
  ToolProgress: { origin: 'tool', displayOnly: true },
  ToolCompleted: { origin: 'tool' },
  PostToolsHookCompleted: { origin: 'postToolsHook' },
  RetryTimeoutFired: { origin: 'retryTimer' },
  ShutdownRequested: { origin: 'caller' },
  Interrupt: { origin: 'caller' },
  ToolApproval: { origin: 'caller' },
  UserAnswer: { origin: 'caller' },
  PreToolUseDecision: { origin: 'hook' },
  PostToolUseResult: { origin: 'hook' },
  UserPromptSubmitDecision: { origin: 'hook' },
  StopDecision: { origin: 'hook' },
  PreCompactDecision: { origin: 'hook' },
  Compact: { origin: 'caller' },
  SetPermissionMode: { origin: 'caller' },
  SetTools: { origin: 'caller' },
  ToolGraceExpired: { origin: 'toolGraceTimer' },
  Resume: { origin: 'store' },
};

/**
 * The event types a caller sends (the user, or the service around the agent).
 *
 * @example
 * CALLER_EVENTS.includes('ToolApproval'); // true
 */
export const CALLER_EVENTS: readonly AgentEventType[] = (
  Object.keys(EVENT_TRAITS) as AgentEventType[]
).filter((type) => EVENT_TRAITS[type].origin === 'caller');
