/** Helpers to walk a {@link GraphState} tree. */
import type { GraphState, GraphTransition, MachineGraph } from './toGraph.js';

/**
 * Every state below `state` (not `state` itself), parents before their children, in definition
 * order.
 *
 * @example
 * descendants(toGraph(agentMachine).root).map((state) => state.path);
 * // ['WaitingForUserInput', 'CallingLlm', …, 'ShuttingDown']
 */
export function descendants(state: GraphState): GraphState[] {
  return state.children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * The states of a graph by path, the root included (under `''`).
 *
 * @example
 * statesByPath(toGraph(agentMachine)).get('ShuttingDown')?.kind; // 'final'
 */
export function statesByPath(graph: MachineGraph): Map<string, GraphState> {
  return new Map([graph.root, ...descendants(graph.root)].map((state) => [state.path, state]));
}

/**
 * Whether a transition goes from a compound state into one of its own descendants, as every
 * root-level transition does. Such a transition is taken in whichever child is active, so the
 * renderers draw it from an "any state" node inside the compound state.
 *
 * @example
 * const shutdown = graph.transitions.find((t) => t.event === 'ShutdownRequested')!;
 * isInward(shutdown, 'ShuttingDown'); // true: it is taken in every state
 */
export function isInward(transition: GraphTransition, target: string): boolean {
  return transition.source === '' || target.startsWith(`${transition.source}.`);
}

/**
 * The transitions of `state` that enter its own descendants (see {@link isInward}), one entry per
 * target.
 *
 * @example
 * inwardTransitions(graph, graph.root).map(({ transition }) => transition.event);
 * // ['ShutdownRequested']
 */
export function inwardTransitions(
  graph: MachineGraph,
  state: GraphState,
): { transition: GraphTransition; target: string }[] {
  return graph.transitions.flatMap((transition) =>
    transition.source === state.path
      ? transition.targets
          .filter((target) => isInward(transition, target))
          .map((target) => ({ transition, target }))
      : [],
  );
}

/**
 * The path of the state whose box an edge from `source` to `target` is drawn in: their lowest
 * common ancestor, or the source itself for an inward transition (`''` is the root).
 *
 * @example
 * edgeOwner('Editing.Dirty', 'Saving'); // ''
 * edgeOwner('Editing.Pristine', 'Editing.Dirty'); // 'Editing'
 * edgeOwner('Editing', 'Editing.Pristine'); // 'Editing'
 */
export function edgeOwner(source: string, target: string): string {
  if (source === '') return '';
  const from = source.split('.');
  const to = target.split('.');
  let common = 0;
  while (common < Math.min(from.length, to.length) && from[common] === to[common]) common++;
  if (common === from.length && common < to.length) return source;
  // Siblings, a state and itself, or a state and its ancestor: the edge is drawn in the parent.
  const depth = common === from.length || common === to.length ? common - 1 : common;
  return from.slice(0, Math.max(0, depth)).join('.');
}
