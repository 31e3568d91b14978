/**
 * What the chart offers the rest of the package: the machine, pure mode, the data it speaks and
 * the rules other layers apply without writing them again. The package's public entry
 * (`src/index.ts`) picks its exports from here by name.
 */
export type { AgentAction, AgentActionType, CompletedToolInfo, LlmCallEnding } from './actions.js';
export { AGENT_ACTOR_NAMES, type AgentActorName, hookActorId } from './actorNames.js';
export {
  type BeforeEffect,
  type EffectStart,
  failureEvent,
  type LlmActorInput,
  type PostToolsHookInput,
  type RetryTimerInput,
  type ToolActorInput,
  type ToolGraceTimerInput,
  type HookInput,
  hookFailure,
  hookInputOf,
  runHookAction,
  type RunHookAction,
  type ToolHookInput,
  type TurnHookInput,
  type PreCompactHookInput,
} from './actorInputs.js';
export { type AgentDiagnosticCode, admit, type Refusal } from './admission.js';
export { AGENT_STATECHART_FOLDER } from './agentStatechartFolder.js';
export { ASK_USER_TOOL, answersProblem, type UserAnswers, type UserQuestion } from './askUser.js';
export {
  AgentCore,
  type AgentCoreOptions,
  type AgentDiagnostic,
  type AgentSnapshot,
  checkSnapshot,
  restoreMachineSnapshot,
  type StoredContext,
  toStoredContext,
  transcriptRepair,
} from './agentCore.js';
export { type AgentMachine, agentMachine } from './agentMachine.js';
export {
  AgentStatechartError,
  type AgentStatechartErrorCode,
  errorMessage,
} from './agentStatechartError.js';
export { changedPathsOf } from './changedPathsOf.js';
export {
  type CompactionTrigger,
  type CompactionUnderway,
  compactionDue,
  DEFAULT_COMPACTION_THRESHOLD,
  DEFAULT_CONTEXT_WINDOW,
  estimateTokens,
  requestTokens,
  type ResolvedCompaction,
  SUMMARY_HEADING,
} from './compaction.js';
export {
  DEFAULT_SUBAGENT_DEPTH,
  isSubagentCall,
  lastResponseText,
  SUBAGENT_HOOKS,
  SUBAGENT_TOOL,
  type SubagentActorInput,
  subagentConfig,
  subagentScope,
  type SubagentTask,
  subagentTaskOf,
  subagentUsageOf,
} from './subagents.js';
export {
  type AgentConfig,
  PERMISSION_MODES,
  type PermissionConfig,
  type PermissionMode,
  type RetryConfig,
  type CompactionConfig,
  type SubagentSpec,
  HOOK_NAMES,
  type HookName,
  hookSwitchesOf,
  type HookSwitches,
  type ToolSpec,
} from './config.js';
export {
  type AgentContext,
  type AgentMachineInput,
  type ResolvedConfig,
  DEFAULT_MAX_TURNS,
  resolveConfig,
  type StreamingToolCall,
  type ToolRun,
  type ToolRunStatus,
  NEW_TURN,
  type TurnState,
  type TranscriptWindow,
  NEW_WINDOW,
} from './context.js';
export {
  type AgentEvent,
  type AgentEventType,
  CALLER_EVENTS,
  EVENT_TRAITS,
  type EventOrigin,
  type EventTraits,
  type InterruptEvent,
  type LlmCompletedEvent,
  type LlmErrorEvent,
  type LlmStartedEvent,
  type LlmStreamDelta,
  type LlmTextDeltaEvent,
  type LlmToolCallDeltaEvent,
  type PostToolsHookCompletedEvent,
  type PostToolUseResultEvent,
  type UserPromptSubmitDecisionEvent,
  type StopDecisionEvent,
  type PreCompactDecisionEvent,
  type CompactEvent,
  type PreToolUseDecisionEvent,
  type ResumeEvent,
  type RetryTimeoutFiredEvent,
  type SetPermissionModeEvent,
  type SetToolsEvent,
  type ShutdownRequestedEvent,
  type ToolApprovalEvent,
  type ToolCompletedEvent,
  type ToolGraceExpiredEvent,
  type ToolProgressEvent,
  type UserAnswerEvent,
  type UserInputEvent,
} from './events.js';
export { allToolsDone, atRest, budgetSpent, limitReached, turnLimitReached } from './guards.js';
export {
  type CacheControl,
  type ContentBlock,
  LLM_ERROR_KINDS,
  type LlmContainer,
  type LlmError,
  type LlmErrorKind,
  type LlmRequest,
  type LlmResponse,
  type LlmStopDetails,
  type Message,
  type OtherBlock,
  type PromptCachePolicy,
  type RedactedThinkingBlock,
  type StopReason,
  type SystemBlock,
  type TextBlock,
  type ThinkingBlock,
  type ToolCall,
  type ToolDefinition,
  type ToolOutcome,
  type ToolResultBlock,
  type ToolResultContent,
  type ImageBlock,
  IMAGE_MEDIA_TYPES,
  messageText,
  type ImageMediaType,
  type DocumentBlock,
  type ToolUseBlock,
  type Usage,
} from './messages.js';
export { copyPlainJson } from './plainJson.js';
export {
  AGENT_STATE_NAMES,
  type AgentStateName,
  type AgentStateValue,
  describeStateValue,
  EXECUTING_REGIONS,
  PROCESSING_SUBSTATES,
  CALLING_SUBSTATES,
  type RegionState,
  topStateOf,
  WAITING_SUBSTATES,
} from './stateNames.js';
export { compactStream, StreamBuffer, type StreamedEvent } from './streamCompaction.js';
export { errorOutcome, openQuestionsOf, type QuestionsAsked } from './toolRuns.js';
export { matchesToolRule } from './toolRules.js';
export { isMutatingTool, TOOL_NAME_PATTERN } from './toolSpecs.js';
export { addUsage } from './usage.js';
export {
  answerOpenToolUses,
  buildRequest,
  findTranscriptViolations,
  toolCallsOf,
  toolResultBlock,
  toolResultsMessage,
} from './transcript.js';
export {
  DEFAULT_OUTPUT_TOOL,
  type OutputSpec,
  outputSpecProblem,
  type ResolvedOutput,
} from './outputSpec.js';
export { checkEvent, type CheckedEvent, validateEvent } from './validateEvent.js';
export {
  addCall,
  costOf,
  DEFAULT_PRICES,
  type ModelPrice,
  NO_USAGE,
  priceOf,
  type TokenUsage,
  tokensOf,
  inputTokensOf,
  type UsageTotals,
} from './usage.js';
