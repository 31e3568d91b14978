/**
 * The chart: types, guards, context helpers, backoff and pure mode. Imports nothing from the
 * rest of the package (actors, inspection, persistence and the CLI depend on it, not the reverse).
 */
export type * from './actorInputs.js';
export type {
  AgentCoreOptions,
  AgentDiagnostic,
  AgentDiagnosticCode,
  AgentSnapshot,
  StoredContext,
} from './agentCore.js';
export { AgentCore, toStoredContext } from './agentCore.js';
export { type AgentMachine, agentMachine } from './agentMachine.js';
export { AgentStatechartError, type AgentStatechartErrorCode } from './agentStatechartError.js';
export { type BackoffSettings, DEFAULT_BACKOFF, nextRandom, retryDelay } from './backoff.js';
export {
  type AgentContext,
  type AgentMachineInput,
  createInitialContext,
  type ResolvedConfig,
  resolveConfig,
  type StreamingToolCall,
  type ToolRun,
  type ToolRunStatus,
} from './context.js';
export * as guards from './guards.js';
export { AGENT_STATE_NAMES } from './stateNames.js';
export { decidePermission, type PermissionDecision } from './permissions.js';
export {
  DEFAULT_MUTATING_TOOLS,
  isEditTool,
  isMutatingTool,
  toToolDefinitions,
} from './toolSpecs.js';
export {
  buildRequest,
  findTranscriptViolations,
  partialAssistantMessage,
  toolCallsOf,
  toolResultBlock,
  toolResultsMessage,
  transcriptOf,
} from './transcript.js';
export type * from './types.js';
export { isAgentEvent, validateEvent } from './validateEvent.js';
