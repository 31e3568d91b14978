/**
 * The machine's transitions as a Markdown table, for docs that cannot drift from the chart.
 */
import type { AnyStateMachine } from 'xstate';
import { type GraphTransition, graphOf, type MachineGraph } from './toGraph.js';

/**
 * A Markdown table with one row per transition branch: source state, event, guard, target and
 * actions. Root-level transitions come last, from "any state"; a transition that changes no
 * state says so; an unguarded branch after guarded ones reads "otherwise".
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * console.log(toTransitionTable(agentMachine));
 * // | from | event | guard | to | actions |
 * // | --- | --- | --- | --- | --- |
 * // | `WaitingForUserInput` | `UserInput` | | `CallingLlm` | `startTurn` |
 * // …
 */
export function toTransitionTable(machine: AnyStateMachine | MachineGraph): string {
  const graph = graphOf(machine);
  const ordered = [
    ...graph.transitions.filter((transition) => transition.source !== ''),
    ...graph.transitions.filter((transition) => transition.source === ''),
  ];
  const rows = ordered.map((transition) => {
    const from = transition.source === '' ? '_any state_' : code(transition.source);
    const to =
      transition.targets.length === 0
        ? '_(stays)_'
        : transition.targets.map((target) => code(target)).join(', ');
    return [
      from,
      code(transition.event),
      guardCell(transition, graph),
      to,
      transition.actions.map(code).join(', '),
    ];
  });
  const header = ['from', 'event', 'guard', 'to', 'actions'];
  const lines = [header, header.map(() => '---'), ...rows].map(
    (cells) => `| ${cells.map(escapeCell).join(' | ')} |`,
  );
  return `${lines.join('\n')}\n`;
}

function guardCell(transition: GraphTransition, graph: MachineGraph): string {
  if (transition.guard !== null) return code(transition.guard);
  const earlier = graph.transitions.filter(
    (other) =>
      other.source === transition.source &&
      other.eventType === transition.eventType &&
      graph.transitions.indexOf(other) < graph.transitions.indexOf(transition),
  );
  return earlier.some((other) => other.guard !== null) ? '_otherwise_' : '';
}

function code(text: string): string {
  return `\`${text}\``;
}

function escapeCell(text: string): string {
  // A pipe ends a cell even inside backticks in GitHub's tables; `||` guards need escaping.
  return text.replace(/\|/g, '\\|');
}
