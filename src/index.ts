/**
 * agent-statechart: an LLM coding agent's loop as one explicit XState v5 statechart.
 *
 * - `createAgent`: actor mode, with Anthropic streaming, tools, git auto-commit and retries;
 * - `AgentCore`: pure mode, `handleEvent(event) → actions`, no I/O, deterministic;
 * - `agentMachine`: the chart itself, whose invoked actors `createLlmActor`, `createToolActor`,
 *   `createGitAutoCommitActor` and `createRetryTimerActor` make;
 * - `defineTool` and the built-in tools;
 * - everything the chart speaks: messages, events, actions, config.
 *
 * Diagrams are in `agent-statechart/diagram`, inspectors in `agent-statechart/inspect`, and a local
 * Messages API server for tests in `agent-statechart/testing`.
 *
 * @packageDocumentation
 */

// Actor mode.
export { Agent, type ShutdownOptions } from './agent/agent.js';
export type { AgentActors } from './agent/agentActors.js';
export type {
  AgentListener,
  AgentNotificationName,
  AgentNotifications,
} from './agent/agentNotifications.js';
export { type CreateAgentOptions, createAgent } from './agent/createAgent.js';
export type { InspectorOption } from './agent/inspectorOption.js';

// The chart and pure mode.
export type {
  BeforeEffect,
  EffectStart,
  LlmActorInput,
  PostToolsHookInput,
  RetryTimerInput,
  ToolActorInput,
  ToolGraceTimerInput,
} from './machine/actorInputs.js';
export {
  type AgentCoreOptions,
  type AgentDiagnostic,
  type AgentDiagnosticCode,
  type AgentSnapshot,
  AgentCore,
  type StoredContext,
} from './machine/agentCore.js';
export { type AgentMachine, agentMachine } from './machine/agentMachine.js';
export { changedPathsOf } from './machine/changedPathsOf.js';
export {
  AgentStatechartError,
  type AgentStatechartErrorCode,
} from './machine/agentStatechartError.js';
export type {
  AgentContext,
  AgentMachineInput,
  ResolvedConfig,
  StreamingToolCall,
  ToolRun,
  ToolRunStatus,
} from './machine/context.js';
export { buildRequest, findTranscriptViolations } from './machine/transcript.js';
export {
  AGENT_STATE_NAMES,
  type AgentAction,
  type AgentActionType,
  type AgentConfig,
  type AgentEvent,
  type AgentEventType,
  type AgentStateName,
  type CompletedToolInfo,
  type ContentBlock,
  type InterruptEvent,
  LLM_ERROR_KINDS,
  type LlmCompletedEvent,
  type LlmContainer,
  type LlmError,
  type LlmErrorEvent,
  type LlmErrorKind,
  type LlmRequest,
  type LlmResponse,
  type LlmStopDetails,
  type LlmStreamDelta,
  type LlmTextDeltaEvent,
  type LlmToolCallDeltaEvent,
  type Message,
  type OtherBlock,
  PERMISSION_MODES,
  type PermissionConfig,
  type PermissionMode,
  type PostToolsHookCompletedEvent,
  type RedactedThinkingBlock,
  type RetryConfig,
  type ResumeEvent,
  type RetryTimeoutFiredEvent,
  type SetPermissionModeEvent,
  type ShutdownRequestedEvent,
  type StopReason,
  type TextBlock,
  type ThinkingBlock,
  type ToolApprovalEvent,
  type ToolCall,
  type ToolCompletedEvent,
  type ToolDefinition,
  type ToolGraceExpiredEvent,
  type ToolOutcome,
  type ToolProgressEvent,
  type ToolResultBlock,
  type ToolSpec,
  type ToolUseBlock,
  type Usage,
  type UserInputEvent,
} from './machine/types.js';
export { validateEvent } from './machine/validateEvent.js';

// Durable sessions.
export { CHART_VERSION } from './persistence/chartVersion.js';
export {
  type AgentHost,
  type AgentHostOptions,
  createAgentHost,
  type HostNotification,
} from './persistence/createAgentHost.js';
export {
  createMemorySessionStore,
  type MemorySessionStoreOptions,
} from './persistence/memorySessionStore.js';
export { type OpenSessionOptions } from './persistence/openSession.js';
export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryResult,
} from './persistence/postgresPool.js';
export {
  createPostgresSessionStore,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './persistence/postgresSessionStore.js';
export { SessionCore } from './persistence/sessionCore.js';
export type {
  Checkpoint,
  SessionHeader,
  SessionStore,
  SessionSummary,
  SessionWrite,
  StoredEntry,
  StoredSession,
  TranscriptRecord,
} from './persistence/sessionStore.js';
export {
  createSqliteSessionStore,
  type SqliteSessionStoreOptions,
} from './persistence/sqliteSessionStore.js';

// The invoked actors, and the I/O they run for pure-mode callers.
export { createLlmActor, type LlmActorOptions } from './actors/llmActor.js';
export { createToolActor, type ToolActorOptions } from './actors/toolActor.js';
export {
  createGitAutoCommitActor,
  type GitAutoCommitActorOptions,
  noPostToolsHook,
} from './actors/postToolsHookActor.js';
export {
  createRetryTimerActor,
  createToolGraceTimerActor,
  type TimerActorOptions,
} from './actors/timerActors.js';
export { classifyLlmError } from './actors/llm/classifyLlmError.js';
export {
  type LlmStreamResult,
  type StreamLlmResponseOptions,
  streamLlmResponse,
} from './actors/llm/streamLlmResponse.js';
export {
  type GitAutoCommitOptions,
  type GitAutoCommitResult,
  gitAutoCommit,
} from './actors/hooks/gitAutoCommit.js';

// Tools.
export {
  defineTool,
  type Tool,
  type ToolContext,
  type ToolOptions,
} from './actors/tools/defineTool.js';
export { createToolRegistry, type ToolRegistry } from './actors/tools/createToolRegistry.js';
export { type RunToolCallOptions, runToolCall } from './actors/tools/runToolCall.js';
export {
  type BuiltinToolsOptions,
  createBuiltinTools,
} from './actors/tools/builtins/createBuiltinTools.js';
export { type BashToolOptions, createBashTool } from './actors/tools/builtins/createBashTool.js';
export { createEditFileTool } from './actors/tools/builtins/createEditFileTool.js';
export {
  createListFilesTool,
  type ListFilesToolOptions,
} from './actors/tools/builtins/createListFilesTool.js';
export {
  createReadFileTool,
  type ReadFileToolOptions,
} from './actors/tools/builtins/createReadFileTool.js';
export { createWriteFileTool } from './actors/tools/builtins/createWriteFileTool.js';
export {
  DEFAULT_SANDBOX_DENY_READ,
  type SandboxOptions,
} from './actors/tools/sandbox/sandboxOptions.js';
