/**
 * Graphviz DOT text for a machine: `dot -Tsvg` (or any Graphviz build, such as the WASM ones)
 * draws it.
 */
import type { AnyStateMachine } from 'xstate';
import { stateDetailLines, lineText } from './textLines.js';
import { type GraphState, graphOf, type MachineGraph } from './toGraph.js';
import { inwardTransitions, isInward, statesByPath } from './walkStates.js';

/**
 * Options of {@link toDot}.
 *
 * @example
 * const options: DotOptions = { direction: 'LR', details: false };
 */
export interface DotOptions {
  /** Graphviz `rankdir`. Default `TB`. */
  direction?: 'TB' | 'LR';
  /**
   * List entry and exit actions, invoked actors and transitions that change no state inside each
   * state's box. Default true.
   */
  details?: boolean;
}

/**
 * Draws a machine as a Graphviz digraph: rounded boxes for states, a double border for final
 * states, a dot for each initial state, clusters for compound states, dashed edges for eventless
 * transitions, labels `event [guard] / actions`. Root-level transitions leave from one dashed
 * "any state" node, as in {@link toMermaid}.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * await writeFile('agent.dot', toDot(agentMachine)); // then: dot -Tpng agent.dot -o agent.png
 */
export function toDot(machine: AnyStateMachine | MachineGraph, options: DotOptions = {}): string {
  const graph = graphOf(machine);
  const details = options.details ?? true;
  const states = statesByPath(graph);
  const lines = [
    `digraph ${quote(graph.id)} {`,
    `  graph [rankdir=${options.direction ?? 'TB'}, compound=true, fontname="Helvetica", nodesep=0.5, ranksep=0.55];`,
    `  node [shape=box, style="rounded,filled", fillcolor="#f5f8ff", color="#3b4a6b", fontname="Helvetica", fontsize=12, margin="0.15,0.08"];`,
    `  edge [fontname="Helvetica", fontsize=10, color="#5b6478"];`,
  ];
  writeChildren(graph, graph.root, details, lines, '  ');
  for (const transition of graph.transitions) {
    for (const target of transition.targets) {
      const inward = isInward(transition, target);
      const from = inward ? anyStateId(transition.source) : transition.source;
      const attributes = [`label=${quote(transition.label.replace(/ \//, '\n/'))}`];
      const source = states.get(transition.source);
      const targetState = states.get(target);
      // Graphviz draws edges between nodes only: a compound state is a cluster holding an
      // invisible anchor node named by the state's path, and an edge that crosses the cluster's
      // border is clipped there (lhead/ltail).
      if (source !== undefined && source.children.length > 0 && !inward) {
        attributes.push(`ltail=${quote(clusterId(transition.source))}`);
      }
      if (targetState !== undefined && targetState.children.length > 0) {
        if (!transition.source.startsWith(`${target}.`) && transition.source !== target) {
          attributes.push(`lhead=${quote(clusterId(target))}`);
        }
      }
      if (transition.trigger === 'always') attributes.push('style=dashed');
      lines.push(`  ${quote(from)} -> ${quote(target)} [${attributes.join(', ')}];`);
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function writeChildren(
  graph: MachineGraph,
  parent: GraphState,
  details: boolean,
  lines: string[],
  indent: string,
): void {
  const initial = parent.children.find((child) => child.initial);
  if (initial !== undefined) {
    const dot = initialId(parent.path);
    lines.push(
      `${indent}${quote(dot)} [shape=point, width=0.14, style=filled, fillcolor="#111827", label=""];`,
    );
  }
  for (const child of parent.children) {
    if (child.children.length > 0) {
      lines.push(`${indent}subgraph ${quote(clusterId(child.path))} {`);
      lines.push(
        `${indent}  graph [label=${htmlLabel(child.key, details ? stateDetailLines(graph, child).map(lineText) : [])}, style="rounded", color="#3b4a6b"];`,
      );
      lines.push(`${indent}  ${quote(child.path)} [shape=point, style=invis, width=0, label=""];`);
      writeChildren(graph, child, details, lines, `${indent}  `);
      lines.push(`${indent}}`);
      continue;
    }
    const title = child.kind === 'history' ? (child.history === 'deep' ? 'H*' : 'H') : child.key;
    const extra = details ? stateDetailLines(graph, child).map(lineText) : [];
    const attributes = [`label=${htmlLabel(title, extra)}`];
    if (child.kind === 'final') attributes.push('peripheries=2', 'fillcolor="#f3f4f6"');
    if (child.kind === 'history') attributes.push('shape=circle');
    lines.push(`${indent}${quote(child.path)} [${attributes.join(', ')}];`);
  }
  if (initial !== undefined) {
    const attributes =
      initial.children.length > 0 ? ` [lhead=${quote(clusterId(initial.path))}]` : '';
    lines.push(`${indent}${quote(initialId(parent.path))} -> ${quote(initial.path)}${attributes};`);
  }
  writeAnyState(graph, parent, details, lines, indent);
}

/**
 * Transitions from a compound state into its own children leave from a dashed "any state" node
 * inside it (as in `toMermaid`); the root's also lists root-level transitions that change no
 * state.
 */
function writeAnyState(
  graph: MachineGraph,
  parent: GraphState,
  details: boolean,
  lines: string[],
  indent: string,
): void {
  const inward = inwardTransitions(graph, parent);
  const listed =
    details && parent.path === ''
      ? graph.transitions
          .filter((t) => t.source === '' && t.targets.length === 0)
          .map((t) => t.label)
      : [];
  if (inward.length === 0 && listed.length === 0) return;
  lines.push(
    `${indent}${quote(anyStateId(parent.path))} [label=${htmlLabel('any state', listed, true)}, style="rounded,dashed", fillcolor="#ffffff"];`,
  );
}

function anyStateId(parentPath: string): string {
  return parentPath === '' ? '(any state)' : `(any state) ${parentPath}`;
}

function clusterId(path: string): string {
  return `cluster_${path}`;
}

function initialId(parentPath: string): string {
  return `(initial)${parentPath === '' ? '' : ` ${parentPath}`}`;
}

function htmlLabel(title: string, details: string[], italic = false): string {
  const name = italic ? `<I>${html(title)}</I>` : `<B>${html(title)}</B>`;
  if (details.length === 0) return `<${name}>`;
  const body = details.map((line) => `${html(line)}<BR ALIGN="LEFT"/>`).join('');
  return `<${name}<BR/><FONT POINT-SIZE="10">${body}</FONT>>`;
}

function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function html(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
