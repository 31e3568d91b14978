/**
 * The invoked actors that do the chart's I/O: Anthropic streaming, tools, git auto-commit and
 * the retry timer. `createAgent` (in `src/agent`) starts the chart with them.
 */
export {
  DeltaCoalescer,
  type DeltaCoalescerOptions,
  type FlushScheduler,
  flushEachTick,
} from './deltaCoalescer.js';
export { closeDeltaCoalescer, openDeltaCoalescer } from './deltaChannel.js';
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
