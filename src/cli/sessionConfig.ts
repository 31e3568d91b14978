/**
 * The configuration a session of the command line runs with, kept in its header: a log holds
 * only what came from outside the chart, so whoever reads it back (`sessions show`,
 * `inspect --session`) replays it through the chart configured as it was — the built-in tools,
 * the permission mode the session started in, whether its model may ask the user questions,
 * which hooks it runs (the chart waits for a hook's answer only when it is switched on), the
 * subagents its `task` tool hands sub-tasks to, and the limits its turns ran with (`maxTurns` and
 * `maxBudgetUsd` are guards: a turn that stopped at one goes on without it). A subagent's session
 * (stored beside its parent's, with the parent's metadata and a `subagent` link) is read back
 * with the chart its child ran.
 */
import { createBuiltinTools, createToolRegistry } from '../actors/index.js';
import {
  type AgentConfig,
  DEFAULT_PRICES,
  DEFAULT_SUBAGENT_DEPTH,
  HOOK_NAMES,
  type HookName,
  type HookSwitches,
  PERMISSION_MODES,
  type PermissionMode,
  priceOf,
  resolveConfig,
  type SubagentSpec,
} from '../machine/index.js';
import { subagentLinkOf, subagentSessionConfig } from '../persistence/index.js';

/** Marks a session created by this command line. */
const CREATED_BY = 'agent-statechart';

/**
 * The names of the hooks `switches` turns on, in the order a turn meets them.
 *
 * @example
 * hookNames({ stop: true, preToolUse: false, userPromptSubmit: true }); // ['userPromptSubmit', 'stop']
 */
export function hookNames(switches: HookSwitches): HookName[] {
  return HOOK_NAMES.filter((name) => switches[name] === true);
}

/** Only the hooks that are on: what a session's metadata records. */
function hooksOn(switches: HookSwitches): HookSwitches {
  return Object.fromEntries(hookNames(switches).map((name) => [name, true]));
}

/**
 * The limits a session's turns run with (`run --max-turns`, `--max-budget`); each absent when
 * not given, and the chart's default applies.
 *
 * @example
 * const limits: SessionLimits = { maxTurns: 20, maxBudgetUsd: 2 };
 */
export interface SessionLimits {
  maxTurns?: number;
  maxBudgetUsd?: number;
}

/**
 * The metadata the command line stores with a session it creates; `askUser` when the session's
 * model is offered the `ask_user` tool (`run`), `hooks`, the hooks it runs (only those on),
 * `agents`, the subagents of its `task` tool (only when given), and its limits, `maxTurns` and
 * `maxBudgetUsd` (only when given), since each changes how the chart takes its events; and
 * `model` (only when given), whose price `maxBudgetUsd` needs.
 *
 * @example
 * createAgent({
 *   store,
 *   sessionId,
 *   sessionMetadata: cliSessionMetadata('/repo', 'default', { askUser: true, hooks: { stop: true }, maxTurns: 20 }),
 * });
 */
export function cliSessionMetadata(
  workspace: string,
  mode: PermissionMode,
  options: SessionLimits & {
    model?: string;
    askUser?: boolean;
    hooks?: HookSwitches;
    agents?: Record<string, SubagentSpec>;
  } = {},
): Record<string, unknown> {
  const hooks = options.hooks === undefined ? {} : hooksOn(options.hooks);
  return {
    createdBy: CREATED_BY,
    workspace,
    mode,
    ...(options.askUser === true ? { askUser: true } : {}),
    ...(Object.keys(hooks).length > 0 ? { hooks } : {}),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    ...limitsOf(options),
    ...(options.model === undefined ? {} : { model: options.model }),
  };
}

/** Only the limits `options` gives: a new session records nothing for one left to its default. */
function limitsOf(options: SessionLimits): SessionLimits {
  return {
    ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
  };
}

/**
 * The limits a session's metadata records, each only when it is one the chart takes (a whole
 * number of model calls, 1 or more; an amount of US dollars above 0): a session that records
 * none (created without the flag, or before `run` recorded its limits) ran with the default.
 *
 * @example
 * sessionLimits({ maxTurns: 2, maxBudgetUsd: 'lots' }); // { maxTurns: 2 }
 */
export function sessionLimits(metadata: Record<string, unknown> | undefined): SessionLimits {
  const { maxTurns, maxBudgetUsd } = metadata ?? {};
  const limits: SessionLimits = {};
  if (Number.isInteger(maxTurns) && (maxTurns as number) >= 1) limits.maxTurns = maxTurns as number;
  if (typeof maxBudgetUsd === 'number' && Number.isFinite(maxBudgetUsd) && maxBudgetUsd > 0) {
    limits.maxBudgetUsd = maxBudgetUsd;
  }
  return limits;
}

/**
 * The model a session's metadata says it was created with (`run --model`; none when it was left
 * to the default).
 *
 * @example
 * sessionModel({ model: 'claude-sonnet-4-5' }); // 'claude-sonnet-4-5'
 */
export function sessionModel(metadata: Record<string, unknown> | undefined): string | undefined {
  const recorded = metadata?.model;
  return typeof recorded === 'string' && recorded !== '' ? recorded : undefined;
}

/**
 * `limits` without a budget the chart could not keep: `maxBudgetUsd` needs the price of the
 * model (the chart refuses the config without one). `run` records the model with the budget;
 * metadata written elsewhere may not, and is read back without the budget rather than not at all.
 */
function pricedLimits(limits: SessionLimits, model: string | undefined): SessionLimits {
  if (limits.maxBudgetUsd === undefined) return limits;
  const chartModel = resolveConfig(model === undefined ? {} : { model }).model;
  if (priceOf(chartModel, DEFAULT_PRICES) !== null) return limits;
  const kept = { ...limits };
  delete kept.maxBudgetUsd;
  return kept;
}

/**
 * The hooks a session's metadata says it runs, only those on (none for a session that names
 * none: one created without hooks, or before `run` took them).
 *
 * @example
 * sessionHooks({ hooks: { userPromptSubmit: true } }); // { userPromptSubmit: true }
 */
export function sessionHooks(metadata: Record<string, unknown> | undefined): HookSwitches {
  const recorded = metadata?.hooks;
  if (typeof recorded !== 'object' || recorded === null) return {};
  return hooksOn(recorded);
}

/**
 * Whether a session's metadata says its model is offered the `ask_user` tool (sessions created
 * before `run` asked questions say nothing, and are read back, and resumed, without it).
 *
 * @example
 * sessionAsksUser(header.metadata); // true for a session `run` created
 */
export function sessionAsksUser(metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.askUser === true;
}

/**
 * The subagents a session's metadata says its `task` tool hands sub-tasks to (none for a session
 * that names none: one created without `--agents`, or before `run` took them).
 *
 * @example
 * sessionAgents(header.metadata); // { researcher: { description: 'Finds things', tools: ['read_file'] } }
 */
export function sessionAgents(
  metadata: Record<string, unknown> | undefined,
): Record<string, SubagentSpec> | undefined {
  const recorded = metadata?.agents;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) {
    return undefined;
  }
  return recorded as Record<string, SubagentSpec>;
}

/**
 * The chart configuration to read a session back with: the built-in tools, the permission mode
 * its metadata names (`default` when it names none: a session created elsewhere), the
 * `ask_user` tool when its metadata says so, the hooks it records (their answers are in the
 * log, and the chart takes them only with the hook switched on), its agents (a task call is
 * the subagent's, answered by its `ToolCompleted`), and the limits and model it records (a turn
 * that stopped at its `maxTurns` or `maxBudgetUsd` stops there again; the model is the one
 * the budget was priced with).
 *
 * A subagent's session (its metadata's `subagent` names the parent's session and the task call)
 * is read back as the child ran: its top session's config taken down its agents
 * (`subagentSessionConfig`) — the tools, system prompt, model and `maxTurns` of its agent's
 * spec (the top session's model and `maxTurns` where the spec names none), none of the parent's
 * questions or budget, only its tool hooks, the agents it has the tools for.
 *
 * @example
 * const config = cliChartConfig(header.metadata);
 */
export function cliChartConfig(metadata: Record<string, unknown> | undefined): AgentConfig {
  const named = metadata?.mode;
  const mode: PermissionMode = (PERMISSION_MODES as readonly unknown[]).includes(named)
    ? (named as PermissionMode)
    : 'default';
  let agents = sessionAgents(metadata);
  const link = subagentLinkOf(metadata);
  // A subagent's session whose metadata does not record its agents (made by a program, not by
  // `run`) is read back with each agent of its link taking every tool of its parent.
  for (const agent of link?.agentPath ?? []) {
    if (agents?.[agent] === undefined) agents = { ...agents, [agent]: { description: agent } };
  }
  const hooks = sessionHooks(metadata);
  const model = sessionModel(metadata);
  const top: AgentConfig = {
    tools: createToolRegistry(createBuiltinTools()).specs(),
    permissions: { mode },
    ...(sessionAsksUser(metadata) ? { askUser: true } : {}),
    ...(hookNames(hooks).length > 0 ? { hooks } : {}),
    ...(agents === undefined ? {} : { agents }),
    ...pricedLimits(sessionLimits(metadata), model),
    ...(model === undefined ? {} : { model }),
  };
  return link === undefined ? top : subagentSessionConfig(top, link, DEFAULT_SUBAGENT_DEPTH);
}
