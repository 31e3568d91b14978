/**
 * What the actors offer the rest of the package: the chart's invoked actors (the model call, the
 * tool calls, the post-tools hook, the timers), the boundary that keeps an actor's failure from
 * stopping the agent, and the I/O they run, for pure-mode callers and the workers.
 */
export { type ActorFailureHandler, checkActorLogic, withFailureBoundary } from './actorBoundary.js';
export {
  DEFAULT_DELTA_WINDOW_MS,
  DeltaCoalescer,
  type DeltaCoalescerOptions,
} from './deltaCoalescer.js';
export { repositoryRoot } from './git/repositoryRoot.js';
export {
  type GitAutoCommitOptions,
  type GitAutoCommitResult,
  gitAutoCommit,
} from './hooks/gitAutoCommit.js';
export { InFlightWork } from './inFlightWork.js';
export { classifyLlmError } from './llm/classifyLlmError.js';
export { createLeanTransport } from './llm/leanTransport.js';
export {
  isClient,
  llmClientFor,
  type LlmTransportChoice,
  resolveLlmTransport,
  TRANSPORT_ENV,
} from './llm/llmClientFor.js';
export type { LlmEventStream, LlmTransport, OpenStreamOptions } from './llm/llmTransport.js';
export {
  type LlmRequestFields,
  toMessageCreateParams,
  toRequestHeaders,
} from './llm/toMessageCreateParams.js';
export {
  type LlmStreamResult,
  type StreamLlmResponseOptions,
  streamLlmResponse,
} from './llm/streamLlmResponse.js';
export { createLlmActor, type LlmActorOptions } from './llmActor.js';
export {
  createGitAutoCommitActor,
  type GitAutoCommitActorOptions,
  noPostToolsHook,
} from './postToolsHookActor.js';
export {
  createRetryTimerActor,
  createToolGraceTimerActor,
  type RetryTimerActorOptions,
  type TimerActorOptions,
} from './timerActors.js';
export { createToolActor, type ToolActorOptions } from './toolActor.js';
export {
  createHookActor,
  DEFAULT_HOOK_TIMEOUT_MS,
  type PostToolUseAnswer,
  type PreToolUseAnswer,
  type StopAnswer,
  type PreCompactAnswer,
  type UserPromptSubmitAnswer,
  runHook,
  hookSwitches,
  type HookActorOptions,
  type HookContext,
  type AgentHooks,
} from './hookActor.js';
export { type BashToolOptions, createBashTool } from './tools/builtins/createBashTool.js';
export {
  type BuiltinToolsOptions,
  createBuiltinTools,
} from './tools/builtins/createBuiltinTools.js';
export { createEditFileTool } from './tools/builtins/createEditFileTool.js';
export {
  createListFilesTool,
  type ListFilesToolOptions,
} from './tools/builtins/createListFilesTool.js';
export {
  createReadFileTool,
  type ReadFileToolOptions,
} from './tools/builtins/createReadFileTool.js';
export { createWriteFileTool } from './tools/builtins/createWriteFileTool.js';
export {
  createToolRegistry,
  liveToolRegistry,
  type ToolRegistry,
} from './tools/createToolRegistry.js';
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  defineTool,
  type OutputOption,
  outputSpecOf,
  zodSchemaOf,
  type Tool,
  type ToolContext,
  type ToolOptions,
} from './tools/defineTool.js';
export { type ToolContent, toolContent } from './tools/toolContent.js';
export { resolveWorkspaceRoot } from './tools/resolveInWorkspace.js';
export { type RunToolCallOptions, runToolCall } from './tools/runToolCall.js';
export { DEFAULT_SANDBOX_DENY_READ, type SandboxOptions } from './tools/sandbox/sandboxOptions.js';
export type { SandboxStatus } from './tools/sandbox/sandboxStatus.js';
