/**
 * Broken copies of the chart, for the meta-test: the same config and implementations with one
 * transition deleted, or sent elsewhere. Nothing in `src/` changes.
 */
import { createMachine } from 'xstate';
import type { AgentMachine, AgentStateName } from '../../src/index.js';

type StateConfigs = Record<string, { on?: Record<string, unknown> } | undefined>;

/**
 * A copy of `machine` without the `event` transition of `state`.
 *
 * @example
 * const broken = withoutTransition(agentMachine, 'PostToolsHook', 'PostToolsHookCompleted');
 */
export function withoutTransition(
  machine: AgentMachine,
  state: AgentStateName,
  event: string,
): AgentMachine {
  const states = machine.config.states as StateConfigs | undefined;
  const node = states?.[state];
  if (node?.on === undefined || !(event in node.on)) {
    throw new Error(`${state} has no ${event} transition to delete`);
  }
  const { [event]: _deleted, ...on } = node.on;
  const config = { ...machine.config, states: { ...states, [state]: { ...node, on } } };
  return copyWith(machine, config);
}

type NodeConfig = { on?: Record<string, unknown>; states?: Record<string, NodeConfig> };

/**
 * A copy of `machine` in which the `branch`-th transition of the state at `path` on `event` goes
 * to `target` (a sibling's name) instead, its guard and actions kept.
 *
 * @example
 * const broken = withTarget(agentMachine, ['CallingLlm', 'Compacting'], 'LlmCompleted', 0, 'Sizing');
 */
export function withTarget(
  machine: AgentMachine,
  path: readonly string[],
  event: string,
  branch: number,
  target: string,
): AgentMachine {
  const edit = (node: NodeConfig, rest: readonly string[]): NodeConfig => {
    const [name, ...deeper] = rest;
    if (name !== undefined) {
      const child = node.states?.[name];
      if (child === undefined) throw new Error(`no state ${path.join('.')}`);
      return { ...node, states: { ...node.states, [name]: edit(child, deeper) } };
    }
    const handlers: unknown = node.on?.[event];
    const list: unknown[] = Array.isArray(handlers) ? [...(handlers as unknown[])] : [handlers];
    const chosen = list[branch] as object | undefined;
    if (chosen === undefined) throw new Error(`${path.join('.')} has no ${event} branch ${branch}`);
    list[branch] = { ...chosen, target };
    return { ...node, on: { ...node.on, [event]: list } };
  };
  return copyWith(machine, edit(machine.config as NodeConfig, path));
}

function copyWith(machine: AgentMachine, config: object): AgentMachine {
  // The copy has the same context, events, actors, guards and actions as the original; only
  // its types cannot follow a config edited at run time.
  return createMachine(
    config as Parameters<typeof createMachine>[0],
    machine.implementations as Parameters<typeof createMachine>[1],
  ) as unknown as AgentMachine;
}
