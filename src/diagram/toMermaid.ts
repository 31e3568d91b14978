/**
 * Mermaid `stateDiagram-v2` text for a machine, the format GitHub renders inside a ```mermaid
 * block.
 */
import type { AnyStateMachine } from 'xstate';
import { type GraphState, graphOf, type MachineGraph } from './toGraph.js';
import { lineText, stateDetailLines } from './textLines.js';
import { descendants, edgeOwner, inwardTransitions, isInward } from './walkStates.js';

/**
 * Options of {@link toMermaid}.
 *
 * @example
 * const options: MermaidOptions = { direction: 'LR', details: false };
 */
export interface MermaidOptions {
  /** Layout direction. Default `TB` (top to bottom). */
  direction?: 'TB' | 'BT' | 'LR' | 'RL';
  /**
   * List entry and exit actions, invoked actors and transitions that change no state inside each
   * state's box. Default true.
   */
  details?: boolean;
}

/**
 * Draws a machine as a Mermaid state diagram. Eventless transitions are drawn (labelled
 * `always [guard]`), labels read `event [guard] / actions`, nested states are drawn nested and
 * final states lead to `[*]`.
 *
 * Root-level transitions (taken in whatever state the machine is in), and any transition from a
 * compound state into its own children, leave from a dashed "any state" node. Mermaid allows no
 * details on a composite state, so a compound state's entry/exit actions are left out.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * console.log('```mermaid\n' + toMermaid(agentMachine) + '```');
 * // stateDiagram-v2
 * //   [*] --> WaitingForUserInput
 * //   WaitingForUserInput --> CallingLlm : UserInput / startTurn
 * //   …
 */
export function toMermaid(
  machine: AnyStateMachine | MachineGraph,
  options: MermaidOptions = {},
): string {
  const graph = graphOf(machine);
  const ids = mermaidIds(graph.root);
  const lines = ['stateDiagram-v2'];
  if (options.direction !== undefined) lines.push(`  direction ${options.direction}`);
  const details = options.details ?? true;
  writeChildren(graph, graph.root, ids, details, lines, '  ');
  if (lines.some((line) => / anyState$/.test(line))) {
    lines.push('  classDef anyState stroke-dasharray: 4 4');
  }
  return `${lines.join('\n')}\n`;
}

function writeChildren(
  graph: MachineGraph,
  parent: GraphState,
  ids: Map<string, string>,
  details: boolean,
  lines: string[],
  indent: string,
): void {
  for (const [index, child] of parent.children.entries()) {
    // Mermaid separates the regions of a parallel state, which run at once, with `--`.
    if (parent.kind === 'parallel' && index > 0) lines.push(`${indent}--`);
    const id = idOf(ids, child.path);
    if (id !== child.key) lines.push(`${indent}state "${escapeText(child.key)}" as ${id}`);
    if (child.kind === 'history') {
      lines.push(`${indent}${id} : ${child.history === 'deep' ? 'H*' : 'H'}`);
    }
    if (child.children.length > 0) {
      lines.push(`${indent}state ${id} {`);
      writeChildren(graph, child, ids, details, lines, `${indent}  `);
      lines.push(`${indent}}`);
    }
  }
  for (const child of parent.children) {
    if (child.initial) lines.push(`${indent}[*] --> ${idOf(ids, child.path)}`);
  }
  // Mermaid puts every state a line mentions into the block the line is in, so an edge is
  // written in the block of the lowest state containing both ends.
  for (const transition of graph.transitions) {
    for (const target of transition.targets) {
      if (isInward(transition, target) || edgeOwner(transition.source, target) !== parent.path) {
        continue;
      }
      const line = `${idOf(ids, transition.source)} --> ${idOf(ids, target)}`;
      lines.push(`${indent}${line} : ${escapeText(transition.label)}`);
    }
  }
  for (const child of parent.children) {
    if (child.kind === 'final') lines.push(`${indent}${idOf(ids, child.path)} --> [*]`);
  }
  writeAnyState(graph, parent, ids, details, lines, indent);
  if (!details) return;
  for (const child of parent.children) {
    // Mermaid shows a state's first description in place of its name, and allows none on a
    // composite state.
    const extra = child.children.length > 0 ? [] : stateDetailLines(graph, child).map(lineText);
    if (extra.length === 0) continue;
    const id = idOf(ids, child.path);
    for (const line of [child.key, ...extra]) lines.push(`${indent}${id} : ${escapeText(line)}`);
  }
}

/**
 * A transition from a compound state into its own children (every root-level transition is one)
 * is taken in whichever child is active. Mermaid cannot draw an edge from a composite state to
 * its own child, and one edge from every child buries the chart, so such transitions leave from
 * one dashed "any state" node inside the compound state. The root's node also lists the
 * root-level transitions that change no state.
 */
function writeAnyState(
  graph: MachineGraph,
  parent: GraphState,
  ids: Map<string, string>,
  details: boolean,
  lines: string[],
  indent: string,
): void {
  const drawn = inwardTransitions(graph, parent);
  const listed =
    details && parent.path === ''
      ? graph.transitions.filter((t) => t.source === '' && t.targets.length === 0)
      : [];
  if (drawn.length === 0 && listed.length === 0) return;
  const id = anyStateId(ids, parent.path);
  lines.push(`${indent}state "${ANY_STATE_LABEL}" as ${id}`);
  for (const { transition, target } of drawn) {
    lines.push(`${indent}${id} --> ${idOf(ids, target)} : ${escapeText(transition.label)}`);
  }
  // The `state "…" as` line gave the node its name; these lines list below it.
  for (const transition of listed) lines.push(`${indent}${id} : ${escapeText(transition.label)}`);
  lines.push(`${indent}class ${id} anyState`);
}

function anyStateId(ids: Map<string, string>, parentPath: string): string {
  const used = new Set(ids.values());
  const base = parentPath === '' ? 'anyState' : `${idOf(ids, parentPath)}_anyState`;
  let id = base;
  while (used.has(id)) id = `_${id}`;
  return id;
}

const ANY_STATE_LABEL = 'any state';

/** Mermaid ids: a state's own key where it is unique and safe, otherwise its whole path. */
function mermaidIds(root: GraphState): Map<string, string> {
  const states = descendants(root);
  const keyCounts = new Map<string, number>();
  for (const state of states) keyCounts.set(state.key, (keyCounts.get(state.key) ?? 0) + 1);
  const ids = new Map<string, string>();
  for (const state of states) {
    const safe = /^[A-Za-z_][A-Za-z0-9_]*$/.test(state.key) && keyCounts.get(state.key) === 1;
    ids.set(state.path, safe ? state.key : state.path.replace(/[^A-Za-z0-9_]/g, '_'));
  }
  return ids;
}

function idOf(ids: Map<string, string>, path: string): string {
  return ids.get(path) ?? path.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Characters Mermaid reads as syntax inside labels are replaced by look-alikes or entities. */
function escapeText(text: string): string {
  return text.replace(/;/g, ',').replace(/#/g, '#35;').replace(/"/g, "'").replace(/\n/g, ' ');
}
