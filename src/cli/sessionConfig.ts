/**
 * The configuration a session of the command line runs with, kept in its header: a log holds
 * only what came from outside the chart, so whoever reads it back (`sessions show`,
 * `inspect --session`) replays it through the chart configured as it was — the built-in tools,
 * the permission mode the session started in, whether its model may ask the user questions,
 * which hooks it runs (the chart waits for a hook's answer only when it is switched on), and the
 * subagents its `task` tool hands sub-tasks to. A subagent's session (stored beside its parent's,
 * with the parent's metadata and a `subagent` link) is read back with the chart its child ran.
 */
import { createBuiltinTools, createToolRegistry } from '../actors/index.js';
import {
  type AgentConfig,
  DEFAULT_SUBAGENT_DEPTH,
  HOOK_NAMES,
  type HookName,
  type HookSwitches,
  PERMISSION_MODES,
  type PermissionMode,
  SUBAGENT_HOOKS,
  subagentScope,
  type SubagentSpec,
  type ToolSpec,
} from '../machine/index.js';
import { type SubagentLink, subagentLinkOf } from '../persistence/index.js';

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
 * The metadata the command line stores with a session it creates; `askUser` when the session's
 * model is offered the `ask_user` tool (`run`), `hooks`, the hooks it runs (only those on), and
 * `agents`, the subagents of its `task` tool (only when given), since each changes how the chart
 * takes its events.
 *
 * @example
 * createAgent({
 *   store,
 *   sessionId,
 *   sessionMetadata: cliSessionMetadata('/repo', 'default', { askUser: true, hooks: { stop: true } }),
 * });
 */
export function cliSessionMetadata(
  workspace: string,
  mode: PermissionMode,
  options: {
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
  };
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
 * log, and the chart takes them only with the hook switched on), and its agents (a task call is
 * the subagent's, answered by its `ToolCompleted`).
 *
 * A subagent's session (its metadata's `subagent` names the parent's session and the task call)
 * is read back as the child ran: with the tools, system prompt, model and `maxTurns` of its
 * agent's spec, none of the parent's questions, only its tool hooks, and the agents.
 *
 * @example
 * const config = cliChartConfig(header.metadata);
 */
export function cliChartConfig(metadata: Record<string, unknown> | undefined): AgentConfig {
  const named = metadata?.mode;
  const mode: PermissionMode = (PERMISSION_MODES as readonly unknown[]).includes(named)
    ? (named as PermissionMode)
    : 'default';
  const tools = createToolRegistry(createBuiltinTools()).specs();
  const agents = sessionAgents(metadata);
  const link = subagentLinkOf(metadata);
  if (link !== undefined) return subagentChartConfig(link, mode, tools, metadata, agents);
  const hooks = sessionHooks(metadata);
  return {
    tools,
    permissions: { mode },
    ...(sessionAsksUser(metadata) ? { askUser: true } : {}),
    ...(hookNames(hooks).length > 0 ? { hooks } : {}),
    ...(agents === undefined ? {} : { agents }),
  };
}

/**
 * The chart a subagent ran with, as `createAgent` starts it from its parent's options: the
 * tools and agents of its scope (`subagentScope`, at its depth), the spec's settings, the mode it
 * started in, and the parent's tool hooks; never the `ask_user` tool.
 */
function subagentChartConfig(
  link: SubagentLink,
  mode: PermissionMode,
  parentTools: ToolSpec[],
  metadata: Record<string, unknown> | undefined,
  agents: Record<string, SubagentSpec> | undefined,
): AgentConfig {
  const spec = agents?.[link.agent] ?? { description: link.agent };
  const scope = subagentScope(
    spec,
    parentTools.map((tool) => tool.name),
    agents,
    DEFAULT_SUBAGENT_DEPTH - link.depth,
  );
  const hooks = Object.fromEntries(
    hookNames(sessionHooks(metadata))
      .filter((hook) => (SUBAGENT_HOOKS as readonly HookName[]).includes(hook))
      .map((hook) => [hook, true]),
  );
  return {
    tools: parentTools.filter((tool) => scope.tools.includes(tool.name)),
    permissions: { mode: link.mode ?? mode },
    ...(spec.system === undefined ? {} : { system: spec.system }),
    ...(spec.model === undefined ? {} : { model: spec.model }),
    ...(spec.maxTurns === undefined ? {} : { maxTurns: spec.maxTurns }),
    ...(Object.keys(hooks).length > 0 ? { hooks } : {}),
    ...(scope.agents === undefined ? {} : { agents: scope.agents }),
  };
}
