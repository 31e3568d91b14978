/**
 * Transition labels and state details as lines of styled parts, wrapped to fit, so the layout
 * can size boxes from them and the SVG writer can colour event, guard and actions differently.
 */
import { DIAGRAM_SIZES } from './diagramStyle.js';
import { measureText } from './measureText.js';
import type { GraphState, GraphTransition, MachineGraph } from './toGraph.js';

/**
 * What a piece of text is, so a renderer can style it: the event, the guard in brackets, the
 * actions after the slash, or a keyword such as `entry`.
 *
 * @example
 * const role: TextRole = 'guard';
 */
export type TextRole = 'event' | 'guard' | 'actions' | 'keyword';

/**
 * One styled piece of a line.
 *
 * @example
 * const part: TextPart = { text: '[attemptsLeft]', role: 'guard' };
 */
export interface TextPart {
  text: string;
  role: TextRole;
}

/**
 * A line of text made of styled parts.
 *
 * @example
 * const line: TextLine = [{ text: 'LlmError', role: 'event' }, { text: ' / giveUp', role: 'actions' }];
 */
export type TextLine = TextPart[];

/**
 * A transition's label as lines: `event [guard]` on the first, wrapping the guard and then the
 * actions onto lines of their own when the whole would be wider than `maxWidth`.
 *
 * @example
 * transitionLines(transition).map((line) => line.map((part) => part.text).join(''));
 * // ['LlmError [retryableError && attemptsLeft]', '/ recordRetryableError']
 */
export function transitionLines(
  transition: GraphTransition,
  maxWidth: number = DIAGRAM_SIZES.maxLabelWidth,
  fontSize: number = DIAGRAM_SIZES.labelSize,
): TextLine[] {
  const pieces: TextPart[] = [{ text: transition.event, role: 'event' }];
  if (transition.guard !== null) pieces.push({ text: `[${transition.guard}]`, role: 'guard' });
  if (transition.actions.length > 0) {
    pieces.push({ text: `/ ${transition.actions.join(', ')}`, role: 'actions' });
  }
  const lines: TextLine[] = [];
  for (const piece of pieces) {
    const current = lines[lines.length - 1];
    if (current !== undefined) {
      const joined = [...current, { ...piece, text: ` ${piece.text}` }];
      if (lineWidth(joined, fontSize) <= maxWidth) {
        lines[lines.length - 1] = joined;
        continue;
      }
    }
    lines.push([piece]);
  }
  return lines;
}

/**
 * What a state's box lists under its name: entry and exit actions, invoked actors, then the
 * transitions it takes without changing state.
 *
 * @example
 * stateDetailLines(graph, callingLlm)[0]; // [{ text: 'entry', role: 'keyword' }, { text: ' / sendLlmRequest', role: 'actions' }]
 */
export function stateDetailLines(graph: MachineGraph, state: GraphState): TextLine[] {
  const lines: TextLine[] = [
    ...state.entry.map((action): TextLine => keywordLine('entry', ` / ${action}`)),
    ...state.exit.map((action): TextLine => keywordLine('exit', ` / ${action}`)),
    ...state.invoke.map((src): TextLine => keywordLine('invoke', ` ${src}`)),
  ];
  for (const transition of graph.transitions) {
    if (transition.source !== state.path || transition.targets.length > 0) continue;
    lines.push(transitionLines(transition, Number.POSITIVE_INFINITY).flat());
  }
  return lines;
}

function keywordLine(keyword: string, rest: string): TextLine {
  return [
    { text: keyword, role: 'keyword' },
    { text: rest, role: 'actions' },
  ];
}

/**
 * The width of a line in pixels.
 *
 * @example
 * lineWidth([{ text: 'always', role: 'event' }], 11); // ≈ 33
 */
export function lineWidth(line: TextLine, fontSize: number): number {
  // Events are drawn bold (see `renderSvg`), so they are measured bold.
  return line.reduce(
    (width, part) =>
      width + measureText(part.text, fontSize, part.role === 'event' ? 'bold' : 'normal'),
    0,
  );
}

/**
 * A line's plain text.
 *
 * @example
 * lineText([{ text: 'always', role: 'event' }, { text: ' [hasToolCalls]', role: 'guard' }]);
 * // 'always [hasToolCalls]'
 */
export function lineText(line: TextLine): string {
  return line.map((part) => part.text).join('');
}
