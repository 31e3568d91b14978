/**
 * Actor mode: the invoked actors that do the chart's I/O (Anthropic streaming, tools, git
 * auto-commit, the retry timer) and `createAgent`, which starts the chart with them.
 */
export {
  Agent,
  type AgentActors,
  type CreateAgentOptions,
  createAgent,
  type ShutdownOptions,
} from './createAgent.js';
export {
  type AgentListener,
  type AgentNotificationName,
  type AgentNotifications,
} from './agentNotifications.js';
export { DeltaCoalescer, type FlushScheduler } from './deltaCoalescer.js';
export { InFlightWork } from './inFlightWork.js';
export { createLlmActor, type LlmActorOptions } from './llmActor.js';
export {
  createGitAutoCommitActor,
  type GitAutoCommitActorOptions,
  noPostToolsHook,
} from './postToolsHookActor.js';
export { createRetryTimerActor } from './retryTimerActor.js';
export { createToolActor, type ToolActorOptions } from './toolActor.js';
export * from './hooks/index.js';
export {
  classifyLlmError,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type LlmStreamResult,
  type StreamLlmResponseOptions,
  streamLlmResponse,
  toMessageCreateParams,
} from './llm/index.js';
export * from './tools/index.js';
