/**
 * Subagents as the chart sees them: the built-in `task` tool the model hands a sub-task to one of
 * the configured agents with, and what a task call asks for. A task call runs like any tool call
 * (hooks, permissions, approvals, interrupts), but in a `subagent` actor of its own, whose final
 * answer is the call's result; pure mode's `StartSubagent` action asks for the same.
 */
import { AgentStatechartError } from './agentStatechartError.js';
import type { AgentConfig, HookSwitches, PermissionMode, SubagentSpec } from './config.js';
import { messageText, type Message, type ToolCall, type ToolDefinition } from './messages.js';
import type { UsageTotals } from './usage.js';

/**
 * The name of the built-in tool that hands a sub-task to a subagent.
 *
 * @example
 * call.name === SUBAGENT_TOOL; // a task for a subagent
 */
export const SUBAGENT_TOOL = 'task';

/**
 * What a task call asks for, read from its input: the agent (one of the configured ones), the
 * whole task, and a few words about it.
 *
 * @example
 * const task: SubagentTask = { agent: 'reviewer', prompt: 'Review src/app.ts for races.', description: 'review app.ts' };
 */
export interface SubagentTask {
  agent: string;
  prompt: string;
  description?: string;
}

/**
 * Input of a `subagent` actor (one per task call, with the call id as actor id), and what pure
 * mode's `StartSubagent` carries: the call, its task, the agent's spec, and the permission mode
 * the parent is in when the call starts (a subagent's is never wider). The actor answers with
 * one `ToolCompleted`, the subagent's final answer as its output (and what it used in `usage`);
 * an `AbortTool` event (an interrupt) interrupts the subagent, which still answers.
 *
 * @example
 * const input: SubagentActorInput = { call, task, spec: { description: 'Reviews code' }, permissionMode: 'default' };
 */
export interface SubagentActorInput {
  call: ToolCall;
  task: SubagentTask;
  spec: SubagentSpec;
  permissionMode: PermissionMode | null;
}

/**
 * The `task` tool as the request offers it, naming each agent and what it is for.
 *
 * @example
 * subagentToolDefinition({ reviewer: { description: 'Reviews a change for bugs' } }).name; // 'task'
 */
export function subagentToolDefinition(
  agents: Readonly<Record<string, SubagentSpec>>,
): ToolDefinition {
  const names = Object.keys(agents);
  const listed = names.map((name) => `- ${name}: ${agents[name]!.description}`).join('\n');
  return {
    name: SUBAGENT_TOOL,
    description: `Hand a self-contained sub-task to a subagent. It works on it alone, with its own context and tools, and answers with a final report, which is this call's result. It sees nothing of this conversation but the prompt, so put everything it needs there. Several task calls in one response run in parallel.\n\nAgents:\n${listed}`,
    input_schema: {
      type: 'object',
      properties: {
        agent: { type: 'string', enum: names, description: 'The agent to hand the task to.' },
        description: { type: 'string', description: 'The task in a few words, for the user.' },
        prompt: {
          type: 'string',
          description: 'The whole task, with every fact, path and constraint it needs.',
        },
      },
      required: ['agent', 'prompt'],
    },
  };
}

/**
 * The call is a task for a subagent: the built-in `task` tool, with agents configured.
 *
 * @example
 * isSubagentCall(call, context.config);
 */
export function isSubagentCall(
  call: ToolCall,
  config: { agents: Readonly<Record<string, SubagentSpec>> },
): boolean {
  return call.name === SUBAGENT_TOOL && Object.keys(config.agents).length > 0;
}

/**
 * What a task call asks for, or why its input is not a task for one of `agents`.
 *
 * @example
 * subagentTaskOf({ agent: 'reviewer', prompt: 'Review it' }, agents); // { task: { agent: 'reviewer', prompt: 'Review it' } }
 */
export function subagentTaskOf(
  input: unknown,
  agents: Readonly<Record<string, SubagentSpec>>,
): { task: SubagentTask } | { problem: string } {
  const read = (input ?? {}) as Partial<Record<keyof SubagentTask, unknown>>;
  const names = Object.keys(agents);
  if (typeof read.agent !== 'string' || !Object.hasOwn(agents, read.agent)) {
    return {
      problem: `agent must be one of ${names.join(', ')}; got ${JSON.stringify(read.agent)}`,
    };
  }
  if (typeof read.prompt !== 'string' || read.prompt.trim() === '') {
    return { problem: 'prompt must be the task, as a non-empty string' };
  }
  if (read.description !== undefined && typeof read.description !== 'string') {
    return { problem: 'description must be a string' };
  }
  const task: SubagentTask = { agent: read.agent, prompt: read.prompt };
  if (read.description !== undefined) task.description = read.description;
  return { task };
}

/** How many levels of subagents below an agent may run, unless it says otherwise. */
export const DEFAULT_SUBAGENT_DEPTH = 2;

/** The hooks a subagent runs of its parent's: those around its tool calls. */
export const SUBAGENT_HOOKS = ['preToolUse', 'postToolUse'] as const;

/**
 * What a subagent of `spec` works with, of what its parent has: the tools its spec names (all of
 * the parent's when it names none), and, while `levelsLeft` allows, the agents it may hand tasks
 * to in turn — those whose tools it has itself (a spec's tools must be its agent's own), none
 * when no agent is left.
 *
 * @example
 * subagentScope({ description: 'Reviews', tools: ['read_file'] }, ['read_file', 'bash'], agents, 1);
 * // { tools: ['read_file'], agents: { … those needing only read_file … } }
 */
export function subagentScope(
  spec: SubagentSpec,
  parentTools: readonly string[],
  agents: Readonly<Record<string, SubagentSpec>> | undefined,
  levelsLeft: number,
): { tools: string[]; agents?: Record<string, SubagentSpec> } {
  const tools = parentTools.filter((name) => spec.tools === undefined || spec.tools.includes(name));
  if (levelsLeft <= 0 || agents === undefined) return { tools };
  const offered = Object.entries(agents).filter(
    ([, agent]) => agent.tools === undefined || agent.tools.every((name) => tools.includes(name)),
  );
  return offered.length === 0 ? { tools } : { tools, agents: Object.fromEntries(offered) };
}

/** What a subagent runs with as its parent does, unless its spec says otherwise. */
const INHERITED_CONFIG_KEYS = [
  'maxRetries',
  'model',
  'maxTokens',
  'request',
  'promptCache',
  'retry',
  'toolGraceMs',
  'maxTurns',
  'compaction',
  'pricing',
] as const satisfies ReadonlyArray<keyof AgentConfig>;

// A field added to the chart's config and decided on nowhere below fails to compile here, rather
// than be left out of every subagent's config unnoticed.
const EVERY_CONFIG_FIELD_DECIDED: [
  Exclude<
    keyof AgentConfig,
    | (typeof INHERITED_CONFIG_KEYS)[number]
    // Set from the spec and the parent, below.
    | 'tools'
    | 'agents'
    | 'permissions'
    | 'hooks'
    | 'system'
    // The parent's own: a subagent answers in text, asks no one, and spends what its parent may.
    | 'askUser'
    | 'output'
    | 'maxBudgetUsd'
  >,
] extends [never]
  ? true
  : never = true;
void EVERY_CONFIG_FIELD_DECIDED;

/**
 * The chart config of a task's subagent, from its parent's — what `createAgent` gives a child
 * agent: the spec's system prompt, model and `maxTurns` over the parent's model and `maxTurns`;
 * the tools the spec names (all the parent's without a list); the parent's permission rules in
 * `mode` (the parent's as the task started); the parent's tool hooks; and, while `levelsLeft`
 * (how many levels of subagents may run below the parent) allows, the parent's agents whose
 * tools the child has (`subagentScope`). Not the parent's structured answer, `ask_user` or
 * budget.
 *
 * @example
 * subagentConfig(config, { agent: 'reviewer', mode: 'default' }, 1);
 */
export function subagentConfig(
  parent: AgentConfig,
  task: { agent: string; mode?: PermissionMode | undefined },
  levelsLeft: number,
): AgentConfig {
  const spec = parent.agents?.[task.agent];
  if (spec === undefined) {
    throw new AgentStatechartError(
      'INVALID_CONFIG',
      `agents['${task.agent}'] is not configured: a subagent's session runs with the spec of its agent, so every worker of a service needs the same agents`,
    );
  }
  const child: AgentConfig = {};
  for (const key of INHERITED_CONFIG_KEYS) {
    if (parent[key] !== undefined) Object.assign(child, { [key]: parent[key] });
  }
  const parentTools = parent.tools ?? [];
  const scope = subagentScope(
    spec,
    parentTools.map((tool) => tool.name),
    parent.agents,
    levelsLeft - 1,
  );
  child.tools = parentTools.filter((tool) => scope.tools.includes(tool.name));
  if (scope.agents !== undefined) child.agents = scope.agents;
  if (parent.permissions !== undefined) {
    child.permissions = {
      ...parent.permissions,
      ...(task.mode === undefined ? {} : { mode: task.mode }),
    };
  }
  const hooks: HookSwitches = {};
  for (const name of SUBAGENT_HOOKS) if (parent.hooks?.[name]) hooks[name] = true;
  if (Object.keys(hooks).length > 0) child.hooks = hooks;
  if (spec.system !== undefined) child.system = spec.system;
  if (spec.model !== undefined) child.model = spec.model;
  if (spec.maxTurns !== undefined) child.maxTurns = spec.maxTurns;
  return child;
}

/**
 * A subagent's answer: the text of the last response in its transcript (`''` when it has none).
 *
 * @example
 * lastResponseText(child.context.messages); // 'alpha: researched'
 */
export function lastResponseText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant') return messageText(message);
  }
  return '';
}

/**
 * What a subagent used, as its parent adds it (a task's `ToolCompleted.usage`): its tokens and
 * cost, not its count of calls (which the parent's `maxTurns` reads of its own).
 *
 * @example
 * subagentUsageOf(child.context.usage);
 */
export function subagentUsageOf(session: UsageTotals): Omit<UsageTotals, 'calls'> {
  const { calls: _calls, ...used } = session;
  return used;
}
