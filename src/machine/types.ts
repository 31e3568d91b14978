/**
 * The data the chart speaks: messages in the Anthropic Messages API shape, the events it accepts,
 * the actions it asks the outside world to perform, and its configuration.
 *
 * Everything here is plain JSON (the value lists aside) so a snapshot of the chart can be stored and restored anywhere.
 */

/**
 * A content block of a message. The shapes the chart itself reads are `text`, `tool_use` and
 * `tool_result`; every other block the API sends (`thinking`, `redacted_thinking`,
 * `server_tool_use`, `web_search_tool_result`, …) is kept as it came and sent back unchanged.
 *
 * @example
 * const block: ContentBlock = { type: 'text', text: 'Hello' };
 */
export type ContentBlock =
  TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock | OtherBlock;

/**
 * Plain text from the user or the model.
 *
 * @example
 * const block: TextBlock = { type: 'text', text: 'Done.' };
 */
export interface TextBlock {
  type: 'text';
  text: string;
}

/**
 * A tool call the model asked for. `input` is the parsed JSON object.
 *
 * @example
 * const call: ToolUseBlock = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } };
 */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/**
 * The answer to one `tool_use`, sent back in a user message.
 *
 * @example
 * const result: ToolResultBlock = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'file text' };
 */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<TextBlock | OtherBlock>;
  is_error?: boolean;
}

/**
 * Extended thinking. Its `signature` must go back to the API unchanged.
 *
 * @example
 * const block: ThinkingBlock = { type: 'thinking', thinking: 'Let me see…', signature: 'EqQB…' };
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/**
 * Thinking the API returned encrypted. Sent back unchanged.
 *
 * @example
 * const block: RedactedThinkingBlock = { type: 'redacted_thinking', data: 'EmwKAhgB…' };
 */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * Any other block the API may send (server-side tools, citations, future types). Kept as-is.
 *
 * @example
 * const block: OtherBlock = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} };
 */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

/**
 * One message of the conversation, exactly as the Messages API takes it.
 *
 * @example
 * const message: Message = { role: 'user', content: 'List the files' };
 */
export interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/**
 * A tool call of the model's response: the `tool_use` block without its `type`.
 *
 * @example
 * const call: ToolCall = { id: 'toolu_1', name: 'bash', input: { command: 'ls' } };
 */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * How one tool call ended. A failure is data the model reads, not an exception. A success may
 * name the files the call changed (`changedPaths`, relative to the workspace with `/`
 * separators): the post-tools hook commits those and nothing else. The model never sees them.
 *
 * @example
 * const ok: ToolOutcome = { status: 'success', output: 'hello' };
 * const wrote: ToolOutcome = { status: 'success', output: "created 'a.txt'", changedPaths: ['a.txt'] };
 * const failed: ToolOutcome = { status: 'error', error: { message: 'no such file: a.txt' } };
 */
export type ToolOutcome =
  | { status: 'success'; output: unknown; changedPaths?: string[] }
  | { status: 'error'; error: { message: string } };

/**
 * Why a model response ended, as the Messages API reports it.
 *
 * @example
 * const reason: StopReason = 'tool_use';
 */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | (string & {});

/**
 * Token counts reported by the API.
 *
 * @example
 * const usage: Usage = { input_tokens: 12, output_tokens: 40 };
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  [key: string]: unknown;
}

/**
 * Why the model stopped, in more detail than the stop reason, as the API reports it (for a
 * refusal: `{ type: 'refusal', category, explanation }`).
 *
 * @example
 * const details: LlmStopDetails = { type: 'refusal', category: 'cyber', explanation: null };
 */
export interface LlmStopDetails {
  type: string;
  [key: string]: unknown;
}

/**
 * The server-side container a response used (the code execution tool runs in one). Its `id`
 * goes back with the next request, so the work in it carries over.
 *
 * @example
 * const container: LlmContainer = { id: 'container_011CZ…', expires_at: '2026-07-01T12:00:00Z' };
 */
export interface LlmContainer {
  id: string;
  expires_at?: string;
  [key: string]: unknown;
}

/**
 * A complete model response: the assistant message (whose `tool_use` blocks are the tool calls),
 * why it stopped and what it cost, and what the API said about it besides (as the SDK's
 * `finalMessage()` has it; a field the API left out or sent as `null` is absent).
 *
 * @example
 * const response: LlmResponse = {
 *   message: { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] },
 *   stopReason: 'end_turn',
 *   id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
 *   model: 'claude-sonnet-5-5',
 * };
 */
export interface LlmResponse {
  message: Message;
  stopReason?: StopReason;
  usage?: Usage;
  /**
   * Tool calls whose input never parsed (for example cut off by `max_tokens`), by `tool_use` id,
   * with the reason. They are not run; the model is told why in their `tool_result`.
   */
  toolInputErrors?: Record<string, string>;
  /** The API's id of the message (`msg_…`). */
  id?: string;
  /** The model that answered. */
  model?: string;
  /** The custom stop sequence that ended the response (`stopReason` is `stop_sequence`). */
  stopSequence?: string;
  /** Why the model stopped, in detail (a refusal's policy category). */
  stopDetails?: LlmStopDetails;
  /** The server-side container the response used; the chart sends its id back next time. */
  container?: LlmContainer;
}

/**
 * The kinds of model-call failure the chart tells apart. `auth` and `invalid_request` are never
 * retried; the others are retried while attempts are left.
 *
 * @example
 * LLM_ERROR_KINDS.includes(error.kind); // true for every LlmError the chart accepts
 */
export const LLM_ERROR_KINDS = [
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'timeout',
  'auth',
  'invalid_request',
  'unknown',
] as const;

/**
 * One of {@link LLM_ERROR_KINDS}.
 *
 * @example
 * const kind: LlmErrorKind = 'rate_limit';
 */
export type LlmErrorKind = (typeof LLM_ERROR_KINDS)[number];

/**
 * A failed model call.
 *
 * @example
 * const error: LlmError = { kind: 'rate_limit', message: '429 Too Many Requests', status: 429, retryAfterMs: 2000 };
 */
export interface LlmError {
  kind: LlmErrorKind;
  message: string;
  status?: number;
  /** Wait at least this long before the next attempt (from a `Retry-After` header). */
  retryAfterMs?: number;
}

/**
 * What the chart sends to the model: the request parameters of the Messages API.
 *
 * @example
 * const request: LlmRequest = { model: 'claude-sonnet-5-5', maxTokens: 4096, messages: [{ role: 'user', content: 'hi' }] };
 */
export interface LlmRequest {
  model: string;
  maxTokens: number;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  /** The id of the server-side container an earlier response used, to keep working in it. */
  container?: string;
}

/**
 * A tool as the model sees it (name, description, JSON Schema of its input).
 *
 * @example
 * const tool: ToolDefinition = { name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } };
 */
export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/**
 * What the chart needs to know about a tool: whether it changes the workspace (only a successful
 * mutating call runs the post-tools hook, and permission modes gate mutating calls) and how the
 * model sees it.
 *
 * @example
 * const spec: ToolSpec = { name: 'edit_file', mutating: true };
 */
export interface ToolSpec {
  name: string;
  /** Changes the workspace. Defaults to true for `edit_file`, `write_file` and `bash`. */
  mutating?: boolean;
  /** Counts as an edit for the `acceptEdits` mode. Defaults to `mutating && name !== 'bash'`. */
  edit?: boolean;
  /**
   * Every call waits for approval, whatever the mode (none configured included), allow rules and
   * remembered approvals; deny rules, remembered denials and `plan` mode still refuse it. The
   * built-in `bash` sets it when no sandbox can start.
   */
  alwaysAsk?: boolean;
  /**
   * Running a call twice has the same effect as running it once. A mutating call that was running
   * when the process stopped is run again on resume only when its tool is idempotent; otherwise
   * the model is told it may or may not have taken effect.
   */
  idempotent?: boolean;
  description?: string;
  inputSchema?: ToolDefinition['input_schema'];
}

/**
 * Permission modes, from the most to the least restrictive.
 *
 * - `plan`: read-only; mutating calls are denied.
 * - `default`: mutating calls wait for a `ToolApproval`.
 * - `acceptEdits`: edits run; other mutating calls (such as `bash`) wait for approval.
 * - `bypassPermissions`: everything runs, except what a deny rule names.
 *
 * @example
 * PERMISSION_MODES.includes(mode); // true for a mode the chart accepts
 */
export const PERMISSION_MODES = ['plan', 'default', 'acceptEdits', 'bypassPermissions'] as const;

/**
 * One of {@link PERMISSION_MODES}.
 *
 * @example
 * const mode: PermissionMode = 'acceptEdits';
 */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/**
 * Permission settings. Without them the chart runs every tool (Loom's behaviour), while
 * `createAgent` starts in `acceptEdits`. Deny rules win over everything, even
 * `bypassPermissions`; allow rules let a tool run without asking.
 *
 * @example
 * const permissions: PermissionConfig = { mode: 'default', allow: ['read_file'], deny: ['bash'] };
 */
export interface PermissionConfig {
  mode: PermissionMode;
  /** Tool names that run without asking (unless denied). */
  allow?: string[];
  /** Tool names that never run. */
  deny?: string[];
}

/**
 * Retry settings for failed model calls (Loom's numbers by default).
 *
 * @example
 * const retry: RetryConfig = { baseDelayMs: 200, factor: 2, maxDelayMs: 5000, seed: 42 };
 */
export interface RetryConfig {
  /** Delay before the first retry, before jitter. Default 200 ms. */
  baseDelayMs?: number;
  /** Growth of the delay per attempt. Default 2. */
  factor?: number;
  /** Upper bound of the delay, before jitter. Default 5000 ms. */
  maxDelayMs?: number;
  /** Seed of the jitter generator, so the same events give the same delays. Default 1. */
  seed?: number;
}

/**
 * Configuration of the chart. Every field has a default.
 *
 * @example
 * const config: AgentConfig = {
 *   maxRetries: 3,
 *   model: 'claude-sonnet-5-5',
 *   system: 'You are a careful coding agent.',
 *   tools: [{ name: 'read_file', mutating: false }, { name: 'edit_file', mutating: true }],
 * };
 */
export interface AgentConfig {
  /** Total attempts per model call, as Loom counts them: with 3, errors one and two retry. Default 3. */
  maxRetries?: number;
  /** Model name sent in each request. Default `claude-sonnet-5-5`. */
  model?: string;
  /** `max_tokens` of each request. Default 4096. */
  maxTokens?: number;
  /** System prompt. */
  system?: string;
  /** Tools the model may call. */
  tools?: ToolSpec[];
  retry?: RetryConfig;
  /** Permission modes and rules. Without them every tool runs (`createAgent`: `acceptEdits`). */
  permissions?: PermissionConfig;
  /**
   * After an interrupt, how long to wait for the tool calls it cancelled to report how they
   * actually ended (a call may finish its side effect anyway) before telling the model they may
   * or may not have taken effect. The user sees the turn end at once either way. Default 5000 ms.
   */
  toolGraceMs?: number;
}

// ─── Events ───────────────────────────────────────────────────────────────────────────────────

/**
 * The user sent a message. During a turn it is queued and starts the next turn.
 *
 * @example
 * const event: UserInputEvent = { type: 'UserInput', message: { role: 'user', content: 'hi' } };
 */
export interface UserInputEvent {
  type: 'UserInput';
  message: Message;
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
 * A piece of a streamed tool call's JSON input.
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

/**
 * The events a model call streams while its response comes in.
 *
 * @example
 * const delta: LlmStreamDelta = { type: 'LlmTextDelta', content: 'Hel' };
 */
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

/**
 * A running tool reported progress (shown to the user; the chart only records it).
 *
 * @example
 * const event: ToolProgressEvent = { type: 'ToolProgress', callId: 'toolu_1', progress: 'compiling…' };
 */
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
}

/**
 * The post-tools hook finished. `actionTaken` says whether it did something (made a commit).
 *
 * @example
 * const event: PostToolsHookCompletedEvent = { type: 'PostToolsHookCompleted', actionTaken: true };
 */
export interface PostToolsHookCompletedEvent {
  type: 'PostToolsHookCompleted';
  actionTaken: boolean;
}

/**
 * The backoff before retrying a failed model call is over.
 *
 * @example
 * const event: RetryTimeoutFiredEvent = { type: 'RetryTimeoutFired' };
 */
export interface RetryTimeoutFiredEvent {
  type: 'RetryTimeoutFired';
}

/**
 * Stop the agent. Accepted in every state; `ShuttingDown` is final.
 *
 * @example
 * const event: ShutdownRequestedEvent = { type: 'ShutdownRequested' };
 */
export interface ShutdownRequestedEvent {
  type: 'ShutdownRequested';
}

/**
 * Cancel the current turn and keep the agent: partial text is kept, open tool calls are answered
 * with an "interrupted" error, and the next queued input (if any) starts a new turn.
 *
 * @example
 * const event: InterruptEvent = { type: 'Interrupt' };
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
  remember?: boolean;
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
 * The grace period after an interrupt is over: tool calls that have not reported how they ended
 * are answered as possibly having taken effect.
 *
 * @example
 * const event: ToolGraceExpiredEvent = { type: 'ToolGraceExpired' };
 */
export interface ToolGraceExpiredEvent {
  type: 'ToolGraceExpired';
}

/**
 * The agent was restored from storage (after a restart or a crash): restart the work that was in
 * flight. A model call is sent again; a tool call is run again if it never started, is read-only
 * or is idempotent, and is otherwise answered as possibly having taken effect; the post-tools hook
 * runs again; a retry backoff waits for what was left; a pending approval is asked again.
 *
 * @example
 * const event: ResumeEvent = { type: 'Resume', startedToolCallIds: ['toolu_1'], retryDelayMs: 900 };
 */
export interface ResumeEvent {
  type: 'Resume';
  /**
   * The tool calls known to have started before the process stopped. Omitted: every running call
   * is taken to have started (so no mutating call can run twice).
   */
  startedToolCallIds?: string[];
  /** What is left of a retry backoff (default: the whole backoff again). */
  retryDelayMs?: number;
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
  | SetPermissionModeEvent
  | ToolGraceExpiredEvent
  | ResumeEvent;

/**
 * The `type` of every event the chart accepts.
 *
 * @example
 * const type: AgentEventType = 'ToolCompleted';
 */
export type AgentEventType = AgentEvent['type'];

// ─── Actions ──────────────────────────────────────────────────────────────────────────────────

/**
 * A tool as `RunPostToolsHook` reports it (Loom's shape).
 *
 * @example
 * const info: CompletedToolInfo = { name: 'edit_file', succeeded: true };
 */
export interface CompletedToolInfo {
  name: string;
  succeeded: boolean;
}

/**
 * What the chart asks the caller to do. In pure mode `handleEvent` returns these; in actor mode
 * the invoked actors do the work and the agent emits the same objects for listeners.
 *
 * @example
 * for (const action of core.handleEvent(event)) {
 *   if (action.type === 'SendLlmRequest') callModel(action.request);
 * }
 */
export type AgentAction =
  | { type: 'SendLlmRequest'; request: LlmRequest }
  | { type: 'ExecuteTools'; calls: ToolCall[] }
  | { type: 'RunPostToolsHook'; completedTools: CompletedToolInfo[] }
  | { type: 'WaitForInput' }
  | { type: 'DisplayMessage'; text: string }
  | { type: 'DisplayError'; message: string }
  | { type: 'Shutdown'; discardedInput: Message[] }
  | { type: 'ScheduleRetry'; delayMs: number; attempt: number }
  | { type: 'RequestApproval'; call: ToolCall }
  | {
      type: 'Cancel';
      llm?: boolean;
      /** Tool calls to abort (and approval requests to withdraw). */
      toolCallIds?: string[];
      /**
       * Report how each aborted call actually ended (a `ToolCompleted`) within this many
       * milliseconds, then send `ToolGraceExpired`.
       */
      graceMs?: number;
      hook?: boolean;
      retry?: boolean;
    };

/**
 * The `type` of every action.
 *
 * @example
 * const type: AgentActionType = 'SendLlmRequest';
 */
export type AgentActionType = AgentAction['type'];

/**
 * The seven top-level states in the order a turn usually meets them (the names of Loom, the
 * agent design the chart comes from).
 *
 * @example
 * for (const state of AGENT_STATE_NAMES) console.log(state);
 */
export const AGENT_STATE_NAMES = [
  'WaitingForUserInput',
  'CallingLlm',
  'ProcessingLlmResponse',
  'ExecutingTools',
  'PostToolsHook',
  'Error',
  'ShuttingDown',
] as const;

/**
 * One of the seven top-level states ({@link AGENT_STATE_NAMES}).
 *
 * @example
 * const state: AgentStateName = 'CallingLlm';
 */
export type AgentStateName = (typeof AGENT_STATE_NAMES)[number];
