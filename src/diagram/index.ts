/**
 * `agent-statechart/diagram`: diagrams of any XState v5 machine, generated from its definition: a
 * JSON graph, Mermaid, DOT and SVG (laid out with ELK, no browser needed), and a Markdown
 * transition table. The `agent-statechart diagram` command prints the same.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * import { toMermaid, toSvg } from 'agent-statechart/diagram';
 * console.log(toMermaid(agentMachine));
 * await writeFile('agent.svg', await toSvg(agentMachine));
 */
export { importModule, isStateMachine, loadMachine, parseMachineSpec } from './loadMachine.js';
export { type DotOptions, toDot } from './toDot.js';
export {
  type GraphState,
  type GraphTransition,
  type MachineGraph,
  type StateKind,
  toGraph,
} from './toGraph.js';
export { type MermaidOptions, toMermaid } from './toMermaid.js';
export { type SvgOptions, toSvg } from './toSvg.js';
export { toTransitionTable } from './toTransitionTable.js';
