import { AgentStatechartError } from './agentStatechartError.js';
import { type BackoffSettings, DEFAULT_BACKOFF } from './backoff.js';
import { offeredToolDefinitions } from './toolSpecs.js';
import { checkConfig } from './checkConfig.js';
import { type ResolvedOutput, resolveOutput } from './outputSpec.js';
import type { CompactionUnderway, ResolvedCompaction } from './compaction.js';
import { answerOpenToolUses } from './transcript.js';
import { DEFAULT_PRICES, type ModelPrice, NO_USAGE, priceOf, type UsageTotals } from './usage.js';
import type { LlmCallEnding } from './actions.js';
import {
  type AgentConfig,
  hookSwitchesOf,
  type HookSwitches,
  type PermissionMode,
  type SubagentSpec,
  type ToolSpec,
} from './config.js';
import type {
  LlmError,
  Message,
  PromptCachePolicy,
  StopReason,
  SystemBlock,
  ToolCall,
  ToolDefinition,
  ToolOutcome,
} from './messages.js';

/** No subagents: one frozen object, shared. */
const NO_AGENTS: Readonly<Record<string, SubagentSpec>> = Object.freeze({});

/**
 * The configuration with every default filled in. It lives in the context so the chart's guards
 * can read it, and is replaced (not restored) when a snapshot is loaded with a new config.
 *
 * @example
 * const config = resolveConfig({ maxRetries: 2 });
 * config.model; // 'claude-sonnet-5-5'
 */
export interface ResolvedConfig {
  maxRetries: number;
  model: string;
  maxTokens: number;
  system: string | SystemBlock[] | undefined;
  /** The other request fields the configuration sets (a plain-JSON copy). */
  requestFields: Readonly<Record<string, unknown>> | undefined;
  promptCache: PromptCachePolicy;
  tools: ToolSpec[];
  /** The built-in `ask_user` tool is offered. */
  askUser: boolean;
  /** The subagents the `task` tool hands sub-tasks to; none: the tool is not offered. */
  agents: Readonly<Record<string, SubagentSpec>>;
  /** The hooks the caller runs. */
  hooks: Required<HookSwitches>;
  /** The tools as sent to the API (computed once, shared by every request). */
  toolDefinitions: ToolDefinition[];
  backoff: BackoffSettings;
  seed: number;
  allow: string[];
  deny: string[];
  toolGraceMs: number;
  /** Model calls per user turn; `null`: no limit. */
  maxTurns: number | null;
  /** The session's spending limit in US dollars; `null`: none. */
  maxBudgetUsd: number | null;
  /** The prices the cost is computed with: the package's list prices and `pricing` over them. */
  prices: Readonly<Record<string, ModelPrice>>;
  /** The form every turn's final answer takes; `null`: a turn ends with whatever the model says. */
  output: ResolvedOutput | null;
  /** When the transcript compacts itself; `null`: only on a `Compact` event. */
  compaction: ResolvedCompaction | null;
}

/**
 * Where one tool call of the current response stands.
 *
 * - `pending`: known, not yet checked against the permissions;
 * - `awaitingApproval`: waiting for a `ToolApproval`;
 * - `awaitingAnswer`: an `ask_user` call waiting for the user's `UserAnswer`;
 * - `preHook`: waiting for the `preToolUse` hook's `PreToolUseDecision`, before the permission
 *   check;
 * - `postHook`: ran, with its outcome; waiting for the `postToolUse` hook's `PostToolUseResult`;
 * - `running`: handed to the caller (`ExecuteTools`) or to a tool actor;
 * - `cancelling`: an interrupt aborted it; waiting (within the grace period) to learn how it
 *   actually ended;
 * - `done`: has its outcome (completed, failed, denied or interrupted).
 *
 * @example
 * const status: ToolRunStatus = 'awaitingApproval';
 */
export type ToolRunStatus =
  | 'pending'
  | 'awaitingApproval'
  | 'awaitingAnswer'
  | 'preHook'
  | 'postHook'
  | 'running'
  | 'cancelling'
  | 'done';

/**
 * A turn's structured answer: the form it must take, the responses that missed it (no answer, or
 * one that does not match), and the answer once given.
 *
 * @example
 * const output: TurnOutput = { form: resolveOutput({ schema }), misses: 0, answer: null };
 */
export interface TurnOutput {
  form: ResolvedOutput;
  misses: number;
  answer: { value: unknown } | null;
  /** Why the latest miss missed, when an answer in the API's format did not parse or match. */
  missed?: string;
}

/**
 * One tool call of the current response and its progress.
 *
 * @example
 * const run: ToolRun = { call: { id: 't1', name: 'bash', input: {} }, status: 'running' };
 */
export interface ToolRun {
  /** The call as it runs: the model's, or with the input a person edited (see `edited`). */
  call: ToolCall;
  status: ToolRunStatus;
  outcome?: ToolOutcome;
  progress?: unknown;
  /** A person approved the call with an input of their own (`ToolApproval.input`). */
  edited?: true;
  /**
   * What the `preToolUse` hook said, once it has: `allow` (run it, unless a deny rule, a
   * remembered denial or `plan` mode refuses it, or its tool always asks), `ask` (wait for
   * approval, unless refused) or `pass` (the permissions decide alone).
   */
  verdict?: 'allow' | 'ask' | 'pass';
  /** What hooks added for the model, read after the call's result. */
  notes?: string[];
}

/**
 * What belongs to one user turn, kept together: what its model calls used and cost, and whether
 * the `stop` hook has already had it go on (it may once).
 *
 * @example
 * core.context.turn.usage.calls; // model calls of the current turn
 */
export interface TurnState {
  usage: UsageTotals;
  /** The `stop` hook asked the turn to go on; it is not asked again until the next turn. */
  stopHookContinued: boolean;
}

/**
 * The state of a turn that has made no model call yet.
 *
 * @example
 * const fresh: TurnState = NEW_TURN;
 */
export const NEW_TURN: TurnState = { usage: NO_USAGE, stopHookContinued: false };

/**
 * The transcript's place in the model's context window: how the latest model call ended, what
 * the API counted the transcript as, how often it was compacted, and the compaction underway.
 *
 * @example
 * core.context.window.compactions; // 2 after two compactions
 */
export interface TranscriptWindow {
  /**
   * How the latest model call ended, and where in the transcript its response went (or would
   * have gone): what `LlmCallEnded` said, kept so it can be said again.
   */
  lastCall: LlmCallEnding | null;
  /**
   * The first `messages` messages, with the system prompt and the tools, took `tokens` as the
   * API counted them (the latest response's usage); `null` before a response, and after a
   * compaction, when only an estimate is known.
   */
  measured: { tokens: number; messages: number } | null;
  /** Times the transcript was compacted. */
  compactions: number;
  /** The compaction underway: why, and what its summary must keep. */
  compacting: CompactionUnderway | null;
}

/**
 * The window of a session that has made no model call yet.
 *
 * @example
 * const fresh: TranscriptWindow = NEW_WINDOW;
 */
export const NEW_WINDOW: TranscriptWindow = {
  lastCall: null,
  measured: null,
  compactions: 0,
  compacting: null,
};

/**
 * A tool call as it streams in, before the response completes.
 *
 * @example
 * const partial: StreamingToolCall = { id: 't1', name: 'bash', argumentsJson: '{"comm' };
 */
export interface StreamingToolCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/**
 * Everything the chart knows, as plain JSON (no class instances, functions or actor refs), so a
 * snapshot can be stored anywhere and restored exactly.
 *
 * @example
 * core.context.messages; // the transcript, in the Messages API shape
 * core.context.queue;    // user input waiting for the current turn to end
 */
export interface AgentContext {
  /**
   * The transcript, in the Messages API shape. Every appended message makes a new array, so a
   * snapshot's transcript never changes after the snapshot is taken.
   */
  messages: Message[];
  /** Failed attempts of the current model call. */
  retries: number;
  /** User input received while a turn was running, oldest first. */
  queue: Message[];
  /** Text streamed by the current model call (its own field, so a delta costs O(1)). */
  streamingText: string;
  /** Tool calls streamed by the current model call, with their raw argument fragments. */
  streamingToolCalls: StreamingToolCall[];
  /** The tool calls of the latest response, in the order the model asked for them. */
  toolRuns: ToolRun[];
  /** Why the latest response ended. */
  stopReason: StopReason | null;
  /** The latest model-call failure. */
  lastError: LlmError | null;
  /** The transcript's place in the model's context window: see {@link TranscriptWindow}. */
  window: TranscriptWindow;
  /** The delay the retry timer waits in `Error`. */
  retryDelayMs: number;
  /** State of the jitter generator. */
  rngState: number;
  /** Current permission mode; `null` when permissions are not configured (every tool runs). */
  permissionMode: PermissionMode | null;
  /** Decisions a person asked to remember (`ToolApproval.remember`), by tool name. */
  rememberedDecisions: Record<string, 'allow' | 'deny'>;
  /** What the session's model calls used and cost, summed. */
  usage: UsageTotals;
  /** Where the current turn stands (the last turn's, between turns): see {@link TurnState}. */
  turn: TurnState;
  /**
   * The id of the server-side container (code execution) the latest response that named one
   * used; every request sends it back, so files and state in it carry over.
   */
  containerId: string | null;
  /**
   * The structured answer of the current turn (the last turn's, between turns): its form, how
   * often the model missed it, and the answer once given. `null` for a turn that asks none.
   */
  output: TurnOutput | null;
  config: ResolvedConfig;
}

/**
 * Input of the agent machine (`createActor(agentMachine, { input })`).
 *
 * @example
 * const input: AgentMachineInput = { config: { maxRetries: 2 } };
 */
export interface AgentMachineInput {
  config?: AgentConfig;
  /** Start from an existing transcript. */
  messages?: Message[];
}

/**
 * Fills in the defaults of a config and checks it, with errors that say the fix.
 *
 * @example
 * resolveConfig({}).maxRetries; // 3
 */
export function resolveConfig(config: AgentConfig = {}): ResolvedConfig {
  const { maxRetries, maxTokens, toolGraceMs, request, compaction } = checkConfig(config);
  const tools = config.tools ?? [];
  const retry = config.retry ?? {};
  const model = config.model ?? 'claude-sonnet-5-5';
  const prices =
    config.pricing === undefined ? DEFAULT_PRICES : { ...DEFAULT_PRICES, ...config.pricing };
  if (config.maxBudgetUsd !== undefined && priceOf(model, prices) === null) {
    throw new AgentStatechartError(
      'INVALID_CONFIG',
      `maxBudgetUsd needs the price of the model, and there is none for '${model}': give it in pricing, as { '${model}': { input, output, cacheWrite, cacheRead } } in US dollars per million tokens`,
    );
  }
  return {
    maxRetries,
    model,
    maxTokens,
    system: config.system,
    requestFields: request,
    promptCache: config.promptCache ?? 'auto',
    tools,
    askUser: config.askUser === true,
    agents: config.agents ?? NO_AGENTS,
    hooks: hookSwitchesOf((name) => config.hooks?.[name] === true),
    toolDefinitions: offeredToolDefinitions(tools, config.askUser === true, config.agents),
    backoff: {
      baseDelayMs: retry.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs,
      factor: retry.factor ?? DEFAULT_BACKOFF.factor,
      maxDelayMs: retry.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    },
    seed: retry.seed ?? 1,
    allow: config.permissions?.allow ?? [],
    deny: config.permissions?.deny ?? [],
    toolGraceMs,
    maxTurns: config.maxTurns === undefined ? DEFAULT_MAX_TURNS : config.maxTurns,
    maxBudgetUsd: config.maxBudgetUsd ?? null,
    prices,
    output: config.output === undefined ? null : resolveOutput(config.output),
    compaction,
  };
}

/**
 * Model calls per user turn when `maxTurns` is not set: far more than a coding task's rounds of
 * tool calls take, few enough that a model calling tools in a loop stops within minutes.
 */
export const DEFAULT_MAX_TURNS = 100;

/**
 * The context of a new agent. Accepts `undefined` because XState may call the context factory
 * without input (for example when it builds a throwaway actor).
 *
 * @example
 * const context = createInitialContext({ config: { maxRetries: 2 } });
 * context.messages; // []
 */
export function createInitialContext(input: AgentMachineInput | undefined): AgentContext {
  const config = resolveConfig(input?.config);
  return {
    // A transcript to start from has every call answered before the first request.
    messages: input?.messages ? [...answerOpenToolUses(input.messages).messages] : [],
    retries: 0,
    queue: [],
    streamingText: '',
    streamingToolCalls: [],
    toolRuns: [],
    stopReason: null,
    lastError: null,
    window: NEW_WINDOW,
    retryDelayMs: 0,
    rngState: config.seed,
    permissionMode: input?.config?.permissions?.mode ?? null,
    rememberedDecisions: {},
    usage: NO_USAGE,
    turn: NEW_TURN,
    containerId: null,
    output: null,
    config,
  };
}
