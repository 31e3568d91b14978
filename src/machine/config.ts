/**
 * How the chart is configured: its tools, permissions, retries and limits. Every field has a
 * default (see `resolveConfig`).
 */
import type { OutputSpec } from './outputSpec.js';
import type { PromptCachePolicy, SystemBlock, ToolDefinition } from './messages.js';
import type { ModelPrice } from './usage.js';

/**
 * What the chart needs to know about a tool: whether it changes the workspace (only a successful
 * mutating call runs the post-tools hook, and permission modes gate mutating calls) and how the
 * model sees it.
 *
 * @example
 * const spec: ToolSpec = { name: 'deploy', mutating: true, description: 'Deploy the site', inputSchema: { type: 'object' } };
 */
export interface ToolSpec {
  name: string;
  /** Changes the workspace. Defaults to true for `edit_file`, `write_file` and `bash`. */
  mutating?: boolean;
  /** Counts as an edit for the `acceptEdits` mode. Defaults to `mutating && name !== 'bash'`. */
  edit?: boolean;
  /**
   * Every call waits for approval, whatever the mode (none configured included), allow rules and
   * remembered approvals; deny rules, remembered denials and `plan` mode still refuse it.
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
 * Which hooks the chart waits for (see `AgentConfig.hooks`).
 *
 * @example
 * const hooks: HookSwitches = { preToolUse: true, stop: true };
 */
export type HookSwitches = Partial<Record<HookName, boolean>>;

/**
 * Every hook, in the order a turn meets them: the one list that the switches, the option checks
 * and what a session records are read from.
 *
 * @example
 * HOOK_NAMES.filter((name) => switches[name]); // the hooks that run, in turn order
 */
export const HOOK_NAMES = [
  'userPromptSubmit',
  'preCompact',
  'preToolUse',
  'postToolUse',
  'stop',
] as const;

/** One of {@link HOOK_NAMES}. */
export type HookName = (typeof HOOK_NAMES)[number];

/**
 * Every hook switched on or off: `on(name)` for each of {@link HOOK_NAMES}.
 *
 * @example
 * hookSwitchesOf((name) => name === 'stop'); // { userPromptSubmit: false, preToolUse: false, postToolUse: false, stop: true }
 */
export function hookSwitchesOf(on: (name: HookName) => boolean): Required<HookSwitches> {
  return Object.fromEntries(HOOK_NAMES.map((name) => [name, on(name)])) as Required<HookSwitches>;
}

/**
 * Permission modes, from the most to the least restrictive.
 *
 * - `plan`: read-only; mutating calls are denied.
 * - `default`: mutating calls wait for a `ToolApproval`.
 * - `acceptEdits`: edits run; other mutating calls (such as `bash`) wait for approval.
 * - `bypassPermissions`: everything runs, except what a deny rule covers.
 *
 * @example
 * PERMISSION_MODES.includes(mode); // true for a mode the chart accepts
 */
export const PERMISSION_MODES = ['plan', 'default', 'acceptEdits', 'bypassPermissions'] as const;

/** One of {@link PERMISSION_MODES}. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/**
 * Permission settings. Without them the chart runs every tool (Loom's behaviour), while
 * `createAgent` starts in `acceptEdits`. Deny rules win over everything, even
 * `bypassPermissions`; allow rules let a tool run without asking.
 *
 * A rule is a tool's exact name (`'bash'`), a prefix ending in `*` (`'mcp__github__get_*'`: every
 * tool whose name starts with `mcp__github__get_`), or `mcp__<server>` (`'mcp__github'`: every
 * tool of that MCP server, named `mcp__github__…`), as the Claude Agent SDK writes them. A `*`
 * anywhere but at the end is refused.
 *
 * @example
 * const permissions: PermissionConfig = {
 *   mode: 'default',
 *   allow: ['read_file', 'mcp__github__get_*'],
 *   deny: ['bash', 'mcp__payments'],
 * };
 */
export interface PermissionConfig {
  mode: PermissionMode;
  /**
   * Rules for tools that run without asking (unless denied): `['edit_file', 'mcp__docs']`.
   * `'*'` alone is refused: to run every tool without asking, use `bypassPermissions`.
   */
  allow?: string[];
  /**
   * Rules for tools that never run, in any mode: `['bash', 'mcp__github__delete_*']`. `['*']`
   * refuses every tool.
   */
  deny?: string[];
}

/**
 * When and how the transcript is compacted: before a model request whose estimated size would
 * pass `threshold` of the model's context window, the model summarises the older part of the
 * conversation, and the transcript becomes that summary followed by the most recent messages,
 * kept word for word (a `tool_use` is never separated from its `tool_result`).
 *
 * @example
 * const compaction: CompactionConfig = { contextWindow: 1_000_000, threshold: 0.7, instructions: 'Keep every file path.' };
 */
export interface CompactionConfig {
  /** The model's context window, in tokens. Default 200,000 (every current Claude model's). */
  contextWindow?: number;
  /** The share of the context window a request may fill before it compacts first. Default 0.8. */
  threshold?: number;
  /**
   * About how many tokens of the most recent messages stay as they are (at least the latest
   * exchange stays, whatever its size). Default a tenth of the context window.
   */
  keepRecentTokens?: number;
  /** What the summary must keep, added to the package's own instructions for it. */
  instructions?: string;
}

/**
 * A subagent the model may hand a sub-task to, with the built-in `task` tool: what it is for (the
 * model reads it), and how it works. It runs with its own transcript, and its final answer is the
 * task call's result.
 *
 * @example
 * const reviewer: SubagentSpec = {
 *   description: 'Reviews a change for bugs and says what to fix; changes nothing',
 *   system: 'You review code. Report problems with file and line.',
 *   tools: ['read_file', 'list_files'],
 * };
 */
export interface SubagentSpec {
  /** When to use it, for the model choosing one. */
  description: string;
  /** Its system prompt. Default: none. */
  system?: string;
  /** The parent's tools it may call, by name. Default: all of the parent's. */
  tools?: string[];
  /** Its model. Default: the parent's. */
  model?: string;
  /** Model calls per task. Default: the parent's `maxTurns`. */
  maxTurns?: number;
}

/** Retry settings for failed model calls (Loom's numbers by default). */
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
  /** System prompt: text, or text blocks (to place cache breakpoints yourself). */
  system?: string | SystemBlock[];
  /**
   * Further fields of every model request, sent as they are: `thinking` (enabled with a
   * `budget_tokens` below `maxTokens`, or adaptive), `output_config` (`effort`), `metadata`
   * (`user_id`), `stop_sequences`, `tool_choice` (`disable_parallel_tool_use`), `service_tier`, …
   * Plain JSON. The chart's own fields (`model`, `max_tokens`, `messages`, `system`, `tools`,
   * `stream`, `container`) are set by their own options, and refused here.
   */
  request?: Record<string, unknown>;
  /** Where requests mark the prompt cache: `'auto'` (default) or `'off'` (see `PromptCachePolicy`). */
  promptCache?: PromptCachePolicy;
  /** Tools the model may call. */
  tools?: ToolSpec[];
  /**
   * Offer the model the built-in `ask_user` tool, with which it puts one to four questions to the
   * user (each with a short header, and choices where it has some) and waits for a `UserAnswer`;
   * the answers are the call's result. The call runs nothing, so no permission applies to it.
   * Default false: turn it on where someone answers (`createAgent`'s `question` notification,
   * pure mode's `AskUser` action).
   */
  askUser?: boolean;
  /**
   * The tool hooks the caller runs: with `preToolUse`, every call (but `ask_user`'s) waits for a
   * `PreToolUseDecision` (after a `RunPreToolUseHook` action) before the permission check; with
   * `postToolUse`, every call that ran waits for a `PostToolUseResult` (after a
   * `RunPostToolUseHook`) before its result is final; with `userPromptSubmit`, every prompt waits
   * in `WaitingForUserInput.CheckingPrompt` for a `UserPromptSubmitDecision` (after a
   * `RunUserPromptSubmitHook`) before it starts a turn; with `stop`, a response that would end
   * the turn waits in `ProcessingLlmResponse.CheckingStop` for a `StopDecision` (after a
   * `RunStopHook`), which may have the turn go on once; with `preCompact`, a compaction waits in
   * `CheckingCompaction` for a `PreCompactDecision` (after a `RunPreCompactHook`), which may
   * veto it or add instructions for the summary. `createAgent` sets these from its `hooks`
   * functions. Default: none.
   */
  hooks?: HookSwitches;
  retry?: RetryConfig;
  /** Permission modes and rules. Without them every tool runs (`createAgent`: `acceptEdits`). */
  permissions?: PermissionConfig;
  /**
   * After an interrupt, how long to wait for the tool calls it cancelled to report how they
   * actually ended (a call may finish its side effect anyway) before telling the model they may
   * or may not have taken effect. The user sees the turn end at once either way. Default 5000 ms.
   */
  toolGraceMs?: number;
  /**
   * How many model calls one user turn may make (each response whose tool calls lead to another
   * call counts; retries of a call do not). When a turn has made this many and the model asks
   * for another round, the turn ends as a give-up does: the tool calls are answered, a
   * `DisplayError` names the limit, and queued input goes on. Default 100; `null`: no limit.
   */
  maxTurns?: number | null;
  /**
   * What the session may spend on model calls, in US dollars, priced from `pricing`. Once its
   * cost reaches this, the turn ends before the next model call (and later input is taken into
   * the transcript without calling the model), with a `DisplayError` that names the limit. No
   * default. The model must have a price.
   */
  maxBudgetUsd?: number;
  /**
   * Every turn ends with a final answer in this form: the model gives it by calling a tool whose
   * input schema is the answer's JSON Schema, and the turn ends once that input is valid (see
   * `OutputSpec`). A `UserInput` may carry its own for the turn it starts.
   */
  output?: OutputSpec;
  /**
   * Compacts a transcript that grows past a share of the model's context window (see
   * `CompactionConfig`); `false` never compacts but on a `Compact` event. Default on, with the
   * defaults of `CompactionConfig`.
   */
  compaction?: CompactionConfig | false;
  /**
   * Subagents the model may hand sub-tasks to, by name (letters, digits, `_` and `-`): the
   * request offers the built-in `task` tool, and each task call runs as a `subagent` actor
   * (pure mode: a `StartSubagent` action) whose final answer is the call's result.
   */
  agents?: Record<string, SubagentSpec>;
  /**
   * Prices by model id, in US dollars per million tokens, added to the list prices the package
   * knows (`DEFAULT_PRICES`) or replacing them: for another model, or a negotiated rate.
   */
  pricing?: Record<string, ModelPrice>;
}
