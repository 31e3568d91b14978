/**
 * Broken copies of the chart, for the meta-test: the same config and implementations with one
 * transition deleted. Nothing in `src/` changes.
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
  // The copy has the same context, events, actors, guards and actions as the original; only
  // its types cannot follow a config edited at run time.
  return createMachine(
    config as Parameters<typeof createMachine>[0],
    machine.implementations as Parameters<typeof createMachine>[1],
  ) as unknown as AgentMachine;
}
