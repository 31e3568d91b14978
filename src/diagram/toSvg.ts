/**
 * SVG for a machine, written by hand from the ELK layout: no browser, no DOM. States are rounded
 * boxes (a final state's has a double border), compound states hold their children, the initial
 * state is marked by a dot, and eventless transitions are dashed.
 */
import type { AnyStateMachine } from 'xstate';
import { DIAGRAM_FONT, DIAGRAM_SIZES } from './diagramStyle.js';
import {
  type DiagramLayout,
  type DiagramLayoutOptions,
  type EdgeLayout,
  type LayoutPoint,
  layoutMachine,
  type NodeLayout,
} from './layoutMachine.js';
import { lineText, type TextLine, type TextRole } from './textLines.js';
import type { MachineGraph } from './toGraph.js';

/**
 * Options of {@link toSvg}: the layout's options.
 *
 * @example
 * const options: SvgOptions = { direction: 'RIGHT', details: false };
 */
export type SvgOptions = DiagramLayoutOptions;

/**
 * Draws a machine as a standalone SVG document. Every state's `<g>` carries
 * `data-state="<path>"` and every transition's `<g>` carries `data-event="<event type>"` (empty
 * for eventless transitions) and `data-transition="<id>"`, so a page can light up the active
 * state and the transition just taken. Deterministic: the same machine gives the same bytes.
 *
 * @example
 * import { writeFile } from 'node:fs/promises';
 * import { agentMachine } from 'agent-statechart';
 * await writeFile('state-machine.svg', await toSvg(agentMachine));
 */
export async function toSvg(
  machine: AnyStateMachine | MachineGraph,
  options: SvgOptions = {},
): Promise<string> {
  return renderSvg(await layoutMachine(machine, options));
}

/** Colours, chosen to read on white and to print in greyscale. */
const COLORS = {
  background: '#ffffff',
  stateFill: '#f5f8ff',
  stateStroke: '#3b4a6b',
  compoundFill: '#fbfcff',
  finalFill: '#f3f4f6',
  anyStateFill: '#ffffff',
  divider: '#c9d2e3',
  title: '#111827',
  edge: '#5b6478',
  event: '#111827',
  guard: '#7c3aed',
  actions: '#4b5563',
  keyword: '#2563eb',
  labelFill: '#ffffff',
} as const;

const ROLE_COLORS: Record<TextRole, string> = {
  event: COLORS.event,
  guard: COLORS.guard,
  actions: COLORS.actions,
  keyword: COLORS.keyword,
};

/**
 * Draws a layout from {@link layoutMachine} as an SVG document (synchronous, for callers that lay
 * out once and draw many times).
 *
 * @example
 * const layout = await layoutMachine(agentMachine);
 * const svg = renderSvg(layout);
 */
export function renderSvg(layout: DiagramLayout): string {
  const { width, height } = layout;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${attr(DIAGRAM_FONT)}" data-machine="${attr(layout.graph.id)}">`,
    `<title>${text(`State machine '${layout.graph.id}'`)}</title>`,
    `<rect class="background" width="${width}" height="${height}" fill="${COLORS.background}"/>`,
  ];
  for (const node of layout.nodes) out.push(renderNode(node));
  for (const edge of layout.edges) out.push(renderEdge(edge));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function renderNode(node: NodeLayout): string {
  if (node.kind === 'initial') {
    const r = node.width / 2;
    return `<g class="initial" data-initial-of="${attr(node.path)}"><circle cx="${num(node.x + r)}" cy="${num(node.y + r)}" r="${num(r)}" fill="${COLORS.title}"/></g>`;
  }
  if (node.state?.kind === 'history') return renderHistory(node);
  const sizes = DIAGRAM_SIZES;
  const final = node.state?.kind === 'final';
  const fill =
    node.kind === 'anyState'
      ? COLORS.anyStateFill
      : final
        ? COLORS.finalFill
        : node.compound
          ? COLORS.compoundFill
          : COLORS.stateFill;
  // Dashed: the "any state" node is no real state; a parallel region runs beside its siblings.
  const dash = node.kind === 'anyState' || node.region ? ' stroke-dasharray="5 4"' : '';
  const parts: string[] = [
    `<rect class="state-box" x="${num(node.x)}" y="${num(node.y)}" width="${num(node.width)}" height="${num(node.height)}" rx="${sizes.cornerRadius}" fill="${fill}" stroke="${COLORS.stateStroke}" stroke-width="1.5"${dash}/>`,
  ];
  if (final) {
    const inset = sizes.finalInset;
    parts.push(
      `<rect class="final-border" x="${num(node.x + inset)}" y="${num(node.y + inset)}" width="${num(node.width - inset * 2)}" height="${num(node.height - inset * 2)}" rx="${sizes.cornerRadius - inset / 2}" fill="none" stroke="${COLORS.stateStroke}" stroke-width="1"/>`,
    );
  }
  const titleBaseline = node.y + sizes.boxPaddingY + sizes.titleSize * 1.05;
  parts.push(
    `<text class="state-name" x="${num(node.x + node.width / 2)}" y="${num(titleBaseline)}" text-anchor="middle" font-size="${sizes.titleSize}" font-weight="bold" fill="${COLORS.title}"${node.kind === 'anyState' ? ' font-style="italic"' : ''}>${text(node.title)}</text>`,
  );
  if (node.details.length > 0) {
    const dividerY =
      node.y + sizes.boxPaddingY + sizes.titleSize * sizes.lineHeight + sizes.dividerGap;
    parts.push(
      `<line class="divider" x1="${num(node.x)}" y1="${num(dividerY)}" x2="${num(node.x + node.width)}" y2="${num(dividerY)}" stroke="${COLORS.divider}"/>`,
    );
    parts.push(
      renderLines(
        node.details,
        node.x + sizes.boxPaddingX,
        dividerY + sizes.dividerGap,
        sizes.detailSize,
        'start',
      ),
    );
  }
  if (node.kind === 'anyState') {
    return `<g class="any-state" data-any-state-of="${attr(node.path)}">${parts.join('')}</g>`;
  }
  const classes = ['state', node.state?.kind ?? 'atomic'];
  if (node.state?.initial) classes.push('initial-state');
  if (node.region) classes.push('region');
  return `<g class="${classes.join(' ')}" data-state="${attr(node.path)}">${parts.join('')}</g>`;
}

function renderHistory(node: NodeLayout): string {
  const r = node.width / 2;
  const cx = num(node.x + r);
  const cy = num(node.y + r);
  return `<g class="state history" data-state="${attr(node.path)}"><circle cx="${cx}" cy="${cy}" r="${num(r)}" fill="${COLORS.stateFill}" stroke="${COLORS.stateStroke}" stroke-width="1.5"/><text x="${cx}" y="${num(node.y + r + DIAGRAM_SIZES.titleSize * 0.35)}" text-anchor="middle" font-size="${DIAGRAM_SIZES.titleSize}" font-weight="bold" fill="${COLORS.title}">${text(node.title)}</text></g>`;
}

function renderEdge(edge: EdgeLayout): string {
  const transition = edge.transition;
  const always = transition?.trigger === 'always';
  const dash = always ? ' stroke-dasharray="6 4"' : '';
  const parts = [
    // A compact label leaves the actions out: the tooltip names the whole transition.
    transition !== null && labelText(edge) !== transition.label
      ? `<title>${text(transition.label)}</title>`
      : '',
    `<path class="edge-line" d="${roundedPath(shortenEnd(edge.points, 5))}" fill="none" stroke="${COLORS.edge}" stroke-width="1.4"${dash}/>`,
    arrowhead(edge.points),
  ];
  if (edge.label !== null) {
    const { x, y, width, height, lines } = edge.label;
    parts.push(
      `<rect class="edge-label-box" x="${num(x)}" y="${num(y)}" width="${num(width)}" height="${num(height)}" rx="3" fill="${COLORS.labelFill}" fill-opacity="0.92"/>`,
    );
    parts.push(
      renderLines(
        lines,
        x + width / 2,
        y + DIAGRAM_SIZES.labelPadding,
        DIAGRAM_SIZES.labelSize,
        'middle',
      ),
    );
  }
  if (transition === null) {
    return `<g class="edge initial-edge" data-source="${attr(edge.source)}" data-target="${attr(edge.target)}">${parts.join('')}</g>`;
  }
  const classes = ['edge', transition.trigger];
  return `<g class="${classes.join(' ')}" data-event="${attr(transition.eventType)}" data-transition="${attr(transition.id)}" data-source="${attr(edge.source)}" data-target="${attr(edge.target)}">${parts.join('')}</g>`;
}

function labelText(edge: EdgeLayout): string {
  return (edge.label?.lines ?? []).map(lineText).join(' ');
}

function renderLines(
  lines: TextLine[],
  x: number,
  top: number,
  fontSize: number,
  anchor: 'start' | 'middle',
): string {
  const lineHeight = fontSize * DIAGRAM_SIZES.lineHeight;
  const rendered = lines.map((line, i) => {
    // The baseline sits about 0.3 em below the line box's centre.
    const baseline = top + lineHeight * i + lineHeight / 2 + fontSize * 0.35;
    const spans = line
      .map(
        (part) =>
          `<tspan fill="${ROLE_COLORS[part.role]}"${part.role === 'event' ? ' font-weight="bold"' : ''}>${text(part.text)}</tspan>`,
      )
      .join('');
    return `<text x="${num(x)}" y="${num(baseline)}" text-anchor="${anchor}" font-size="${fontSize}" xml:space="preserve">${spans}</text>`;
  });
  return rendered.join('');
}

/** A polyline with its corners rounded off, so orthogonal routes read as one smooth line. */
function roundedPath(points: LayoutPoint[]): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  const commands = [`M${num(first.x)} ${num(first.y)}`];
  for (let i = 0; i < rest.length; i++) {
    const corner = rest[i];
    const previous = points[i];
    const next = rest[i + 1];
    if (corner === undefined || previous === undefined) continue;
    if (next === undefined) {
      commands.push(`L${num(corner.x)} ${num(corner.y)}`);
      continue;
    }
    const radius = Math.min(8, distance(previous, corner) / 2, distance(corner, next) / 2);
    const before = towards(corner, previous, radius);
    const after = towards(corner, next, radius);
    commands.push(`L${num(before.x)} ${num(before.y)}`);
    commands.push(`Q${num(corner.x)} ${num(corner.y)} ${num(after.x)} ${num(after.y)}`);
  }
  return commands.join(' ');
}

/** Stops the line inside the arrowhead, so its square end does not blunt the tip. */
function shortenEnd(points: LayoutPoint[], length: number): LayoutPoint[] {
  const end = points[points.length - 1];
  const before = points[points.length - 2];
  if (end === undefined || before === undefined || distance(before, end) <= length) return points;
  return [...points.slice(0, -1), towards(end, before, length)];
}

function arrowhead(points: LayoutPoint[]): string {
  const end = points[points.length - 1];
  const before = points[points.length - 2];
  if (end === undefined || before === undefined) return '';
  const length = 9;
  const halfWidth = 4.5;
  const d = distance(before, end) || 1;
  const ux = (end.x - before.x) / d;
  const uy = (end.y - before.y) / d;
  const baseX = end.x - ux * length;
  const baseY = end.y - uy * length;
  const left = { x: baseX - uy * halfWidth, y: baseY + ux * halfWidth };
  const right = { x: baseX + uy * halfWidth, y: baseY - ux * halfWidth };
  return `<path class="edge-arrow" d="M${num(end.x)} ${num(end.y)} L${num(left.x)} ${num(left.y)} L${num(right.x)} ${num(right.y)} Z" fill="${COLORS.edge}"/>`;
}

function distance(a: LayoutPoint, b: LayoutPoint): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

function towards(from: LayoutPoint, to: LayoutPoint, length: number): LayoutPoint {
  const d = distance(from, to) || 1;
  return { x: from.x + ((to.x - from.x) / d) * length, y: from.y + ((to.y - from.y) / d) * length };
}

/** Numbers with at most two decimals and no `-0`, so output is byte-stable. */
function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;');
}
