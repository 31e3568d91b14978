/**
 * Diagrams of any XState v5 machine, generated from its definition: a JSON graph, Mermaid, DOT
 * and SVG (laid out with ELK, no browser needed), plus a Markdown transition table.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * import { toMermaid, toSvg } from './diagram/index.js';
 * console.log(toMermaid(agentMachine));
 * await writeFile('agent.svg', await toSvg(agentMachine));
 */
export { describeAction } from './describeAction.js';
export { describeEvent, type TransitionTrigger } from './describeEvent.js';
export { describeGuard } from './describeGuard.js';
export { DIAGRAM_FONT, DIAGRAM_SIZES } from './diagramStyle.js';
export {
  type DiagramLayout,
  type DiagramLayoutOptions,
  type EdgeLayout,
  type LayoutBox,
  type LayoutPoint,
  layoutMachine,
  type NodeLayout,
  stateId,
} from './layoutMachine.js';
export { isStateMachine, loadMachine, parseMachineSpec } from './loadMachine.js';
export { measureText } from './measureText.js';
export {
  lineText,
  lineWidth,
  stateDetailLines,
  type TextLine,
  type TextPart,
  type TextRole,
  transitionLines,
} from './textLines.js';
export { type DotOptions, toDot } from './toDot.js';
export {
  type GraphState,
  type GraphTransition,
  graphOf,
  type MachineGraph,
  type StateKind,
  toGraph,
  transitionLabel,
} from './toGraph.js';
export { type MermaidOptions, toMermaid } from './toMermaid.js';
export { renderSvg, type SvgOptions, toSvg } from './toSvg.js';
export { toTransitionTable } from './toTransitionTable.js';
export { descendants, statesByPath } from './walkStates.js';
