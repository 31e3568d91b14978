/**
 * Lays a machine out with ELK (the Eclipse Layout Kernel, compiled to JavaScript: no browser, no
 * native binary) and returns absolute positions for every state, initial dot, transition route
 * and label. `toSvg` draws this layout; the inspector page draws it live.
 */
import type { ElkExtendedEdge, ElkLabel, ElkNode, ElkPoint } from 'elkjs/lib/elk-api.js';
import type { AnyStateMachine } from 'xstate';
import { DIAGRAM_SIZES } from './diagramStyle.js';
import { measureText } from './measureText.js';
import { lineWidth, stateDetailLines, type TextLine, transitionLines } from './textLines.js';
import { type GraphState, type GraphTransition, graphOf, type MachineGraph } from './toGraph.js';
import { edgeOwner, inwardTransitions, isInward } from './walkStates.js';

/**
 * Options of {@link layoutMachine}.
 *
 * @example
 * const options: DiagramLayoutOptions = { direction: 'RIGHT', details: false };
 */
export interface DiagramLayoutOptions {
  /** Which way transitions flow. Default `DOWN`. */
  direction?: 'DOWN' | 'RIGHT';
  /**
   * List entry and exit actions, invoked actors and transitions that change no state inside each
   * state's box. Default true.
   */
  details?: boolean;
  /**
   * Tighter spacing, and transition labels that name the event and guard but not the actions
   * (`toSvg` puts the whole label in a tooltip), so the whole chart fits a panel at a readable
   * size: the inspector page draws it this way. Default false.
   */
  compact?: boolean;
}

/**
 * A rectangle in diagram coordinates (pixels, origin top left).
 *
 * @example
 * const box: LayoutBox = { x: 16, y: 16, width: 180, height: 40 };
 */
export interface LayoutBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A point in diagram coordinates.
 *
 * @example
 * const point: LayoutPoint = { x: 120, y: 48 };
 */
export interface LayoutPoint {
  x: number;
  y: number;
}

/**
 * A placed node: a state, the dot that marks a compound state's initial child, or the dashed
 * "any state" node that root-level transitions leave from.
 *
 * @example
 * const node = layout.nodes.find((n) => n.kind === 'state' && n.path === 'CallingLlm');
 */
export interface NodeLayout extends LayoutBox {
  /** Unique within the layout: `state:<path>`, `initial:<parent path>` or `anyState:<parent path>`. */
  id: string;
  kind: 'state' | 'initial' | 'anyState';
  /** The state's path; for an initial dot or an "any state" node, its parent's path. */
  path: string;
  /** The state (null for the initial dot and the "any state" node). */
  state: GraphState | null;
  /** The name drawn in the box. */
  title: string;
  /** Lines listed under the name. */
  details: TextLine[];
  /** Height of the band holding the name (and, in a compound state, its details). */
  headerHeight: number;
  /** Whether the node holds child states. */
  compound: boolean;
  /** Whether the state is a region of a parallel state (active alongside its siblings). */
  region: boolean;
}

/**
 * A placed transition: its route, from the source's border to the target's, and its label.
 *
 * @example
 * const edge = layout.edges.find((e) => e.transition?.event === 'LlmError');
 * edge?.points.length; // start, bends, end
 */
export interface EdgeLayout {
  /** Unique within the layout. */
  id: string;
  /** The transition drawn, or null for the edge from an initial dot. */
  transition: GraphTransition | null;
  /** Id of the node the edge leaves from (see {@link NodeLayout.id}); a transition into the
   * source's own children leaves from its "any state" node. */
  source: string;
  /** Id of the node the edge enters. */
  target: string;
  /** The route: start point, bend points, end point. */
  points: LayoutPoint[];
  /** The label box and its lines, or null (initial edges have none). */
  label: (LayoutBox & { lines: TextLine[] }) | null;
}

/**
 * A machine laid out: draw it with `renderSvg`, or with anything else that draws boxes and
 * polylines.
 *
 * @example
 * const layout: DiagramLayout = await layoutMachine(agentMachine);
 * console.log(layout.width, layout.height);
 */
export interface DiagramLayout {
  graph: MachineGraph;
  width: number;
  height: number;
  /** Nodes, parents before their children (the order to paint them in). */
  nodes: NodeLayout[];
  edges: EdgeLayout[];
}

const ANY_STATE_TITLE = 'any state';
/** Diameter of a history state's circle. */
const HISTORY_SIZE = 32;

/** Compact labels put a guard under its event: the chart gets narrower, and panels are wide. */
const COMPACT_LABEL_WIDTH = 80;

/**
 * ELK's spacings in pixels, for documents (roomy) and for panels (compact). A panel's chart is
 * also compacted after layering, which pulls long edges in and makes the chart shorter: in a
 * window, the height runs out first.
 */
const SPACINGS = {
  roomy: {
    'elk.spacing.nodeNode': '36',
    'elk.layered.spacing.nodeNodeBetweenLayers': '44',
    'elk.spacing.edgeNode': '18',
    'elk.spacing.edgeEdge': '14',
    'elk.layered.spacing.edgeNodeBetweenLayers': '18',
    'elk.layered.spacing.edgeEdgeBetweenLayers': '12',
  },
  compact: {
    'elk.spacing.nodeNode': '20',
    'elk.layered.spacing.nodeNodeBetweenLayers': '20',
    'elk.spacing.edgeNode': '10',
    'elk.spacing.edgeEdge': '8',
    'elk.layered.spacing.edgeNodeBetweenLayers': '8',
    'elk.layered.spacing.edgeEdgeBetweenLayers': '6',
    'elk.layered.compaction.postCompaction.strategy': 'LEFT',
  },
} as const;

/**
 * Lays a machine (or its graph) out with ELK's layered algorithm. Deterministic: the same
 * machine gives the same coordinates.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * const layout = await layoutMachine(agentMachine, { direction: 'DOWN' });
 * const calling = layout.nodes.find((node) => node.path === 'CallingLlm');
 * console.log(calling?.x, calling?.y, calling?.width, calling?.height);
 */
export async function layoutMachine(
  machine: AnyStateMachine | MachineGraph,
  options: DiagramLayoutOptions = {},
): Promise<DiagramLayout> {
  const graph = graphOf(machine);
  const builder = new ElkGraphBuilder(graph, options.details ?? true, options.compact ?? false);
  const elkGraph = builder.build(options.direction ?? 'DOWN');
  // Loaded on first use: ELK is a large script that code importing only `toMermaid` never needs.
  const { default: elkModule } = await import('elkjs/lib/elk.bundled.js');
  const elk = new elkModule.default();
  const laidOut = await elk.layout(elkGraph);
  return builder.read(laidOut);
}

interface PendingNode {
  region: boolean;
  id: string;
  kind: NodeLayout['kind'];
  path: string;
  state: GraphState | null;
  title: string;
  details: TextLine[];
  headerHeight: number;
  compound: boolean;
}

/** Builds ELK's input graph from a machine graph, then reads ELK's answer back. */
class ElkGraphBuilder {
  readonly #graph: MachineGraph;
  readonly #details: boolean;
  readonly #compact: boolean;
  readonly #nodes = new Map<string, PendingNode>();
  readonly #edges = new Map<string, Omit<EdgeLayout, 'points' | 'label'>>();
  readonly #labels = new Map<string, TextLine[]>();

  constructor(graph: MachineGraph, details: boolean, compact: boolean) {
    this.#graph = graph;
    this.#details = details;
    this.#compact = compact;
  }

  build(direction: 'DOWN' | 'RIGHT'): ElkNode {
    // A panel has its own border: the chart needs little margin there.
    const margin = this.#compact ? DIAGRAM_SIZES.margin / 2 : DIAGRAM_SIZES.margin;
    const root: ElkNode = {
      id: 'root',
      layoutOptions: {
        'elk.algorithm': 'layered',
        'elk.direction': direction,
        'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
        'elk.edgeRouting': 'ORTHOGONAL',
        'elk.padding': `[top=${margin},left=${margin},bottom=${margin},right=${margin}]`,
        ...SPACINGS[this.#compact ? 'compact' : 'roomy'],
        'elk.spacing.edgeLabel': '4',
        'elk.edgeLabels.placement': 'CENTER',
        'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
        // Keep the definition order where it costs no crossings: a stable, familiar picture.
        'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
        // Back edges are the ones that point to a state defined earlier: the initial state stays on top.
        'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
        'elk.randomSeed': '1',
      },
      children: [],
      edges: [],
    };
    this.#addChildren(this.#graph.root, root);
    this.#addTransitions(root);
    return root;
  }

  read(laidOut: ElkNode): DiagramLayout {
    const nodes: NodeLayout[] = [];
    const offsets = new Map<string, LayoutPoint>([['root', { x: 0, y: 0 }]]);
    const edges: EdgeLayout[] = [];
    const visit = (elkNode: ElkNode, origin: LayoutPoint): void => {
      for (const child of elkNode.children ?? []) {
        const x = origin.x + (child.x ?? 0);
        const y = origin.y + (child.y ?? 0);
        offsets.set(child.id, { x, y });
        const pending = this.#nodes.get(child.id);
        if (pending !== undefined) {
          nodes.push({ ...pending, x, y, width: child.width ?? 0, height: child.height ?? 0 });
        }
        visit(child, { x, y });
      }
    };
    visit(laidOut, { x: 0, y: 0 });
    const collect = (elkNode: ElkNode): void => {
      for (const edge of elkNode.edges ?? []) edges.push(this.#readEdge(edge, offsets));
      for (const child of elkNode.children ?? []) collect(child);
    };
    collect(laidOut);
    edges.sort((a, b) => this.#edgeOrder(a.id) - this.#edgeOrder(b.id));
    return {
      graph: this.#graph,
      width: Math.ceil(laidOut.width ?? 0),
      height: Math.ceil(laidOut.height ?? 0),
      nodes,
      edges,
    };
  }

  #edgeOrder(id: string): number {
    return [...this.#edges.keys()].indexOf(id);
  }

  #readEdge(edge: ElkExtendedEdge, offsets: Map<string, LayoutPoint>): EdgeLayout {
    const meta = this.#edges.get(edge.id);
    if (meta === undefined) throw new Error(`ELK returned an unknown edge '${edge.id}'`);
    // ELK gives an edge's coordinates relative to the node that contains it.
    const origin = offsets.get(edge.container ?? 'root') ?? { x: 0, y: 0 };
    const shift = (point: ElkPoint): LayoutPoint => ({
      x: round(origin.x + point.x),
      y: round(origin.y + point.y),
    });
    const points: LayoutPoint[] = [];
    for (const section of edge.sections ?? []) {
      points.push(shift(section.startPoint), ...(section.bendPoints ?? []).map(shift));
      points.push(shift(section.endPoint));
    }
    const [elkLabel] = edge.labels ?? [];
    const lines = this.#labels.get(edge.id);
    const label =
      elkLabel === undefined || lines === undefined
        ? null
        : {
            x: round(origin.x + (elkLabel.x ?? 0)),
            y: round(origin.y + (elkLabel.y ?? 0)),
            width: elkLabel.width ?? 0,
            height: elkLabel.height ?? 0,
            lines,
          };
    return { ...meta, points: dedupe(points), label };
  }

  #addChildren(parent: GraphState, container: ElkNode): void {
    const children = container.children ?? [];
    container.children = children;
    const initial = parent.children.find((child) => child.initial);
    if (initial !== undefined) {
      const id = initialId(parent.path);
      children.push({ id, width: DIAGRAM_SIZES.initialDot, height: DIAGRAM_SIZES.initialDot });
      this.#nodes.set(id, {
        id,
        kind: 'initial',
        path: parent.path,
        state: null,
        title: '',
        details: [],
        headerHeight: 0,
        compound: false,
        region: false,
      });
      this.#edges.set(`initial:${parent.path}`, {
        id: `initial:${parent.path}`,
        transition: null,
        source: id,
        target: stateId(initial.path),
      });
      (container.edges ??= []).push({
        id: `initial:${parent.path}`,
        sources: [id],
        targets: [stateId(initial.path)],
      });
    }
    for (const child of parent.children) {
      const node = this.#stateNode(child, parent.kind === 'parallel');
      children.push(node);
      if (child.children.length > 0) this.#addChildren(child, node);
    }
    this.#addAnyState(parent, container);
  }

  #stateNode(state: GraphState, region: boolean): ElkNode {
    const details = this.#details ? stateDetailLines(this.#graph, state) : [];
    const title = state.kind === 'history' ? (state.history === 'deep' ? 'H*' : 'H') : state.key;
    const compound = state.children.length > 0;
    const { width, height } =
      state.kind === 'history'
        ? { width: HISTORY_SIZE, height: HISTORY_SIZE }
        : boxSize(title, details);
    const id = stateId(state.path);
    this.#nodes.set(id, {
      id,
      kind: 'state',
      path: state.path,
      state,
      title,
      details,
      headerHeight: height,
      compound,
      region,
    });
    if (!compound) return { id, width, height };
    const pad = DIAGRAM_SIZES.compoundPadding;
    return {
      id,
      layoutOptions: {
        'elk.padding': `[top=${height + pad / 2},left=${pad},bottom=${pad},right=${pad}]`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${width}, ${height})`,
      },
    };
  }

  /**
   * Transitions from a compound state into its own children (every root-level transition is
   * one) leave from a dashed "any state" node inside it, as in `toMermaid`. The root's node also
   * lists the root-level transitions that change no state.
   */
  #addAnyState(parent: GraphState, container: ElkNode): void {
    const inward = inwardTransitions(this.#graph, parent);
    const details =
      this.#details && parent.path === ''
        ? stateDetailLines(this.#graph, parent).filter((line) => line[0]?.role !== 'keyword')
        : [];
    if (inward.length === 0 && details.length === 0) return;
    const id = anyStateId(parent.path);
    const { width, height } = boxSize(ANY_STATE_TITLE, details);
    // Model order decides which way an edge points (see cycleBreaking): the node goes just
    // before the first child it leads to, so its edges point down.
    const children = (container.children ??= []);
    const firstTarget = children.findIndex((child) =>
      inward.some(
        ({ target }) => child.id === stateId(target) || target.startsWith(`${pathOfId(child.id)}.`),
      ),
    );
    children.splice(firstTarget === -1 ? children.length : firstTarget, 0, { id, width, height });
    this.#nodes.set(id, {
      id,
      kind: 'anyState',
      path: parent.path,
      state: null,
      title: ANY_STATE_TITLE,
      details,
      headerHeight: height,
      compound: false,
      region: false,
    });
  }

  #addTransitions(root: ElkNode): void {
    const containers = new Map<string, ElkNode>();
    const index = (node: ElkNode): void => {
      containers.set(node.id, node);
      for (const child of node.children ?? []) index(child);
    };
    index(root);
    for (const transition of this.#graph.transitions) {
      transition.targets.forEach((target, targetIndex) => {
        const id = `${transition.id}>${targetIndex}`;
        const source = isInward(transition, target)
          ? anyStateId(transition.source)
          : stateId(transition.source);
        const lines = transitionLines(
          this.#compact ? { ...transition, actions: [] } : transition,
          this.#compact ? COMPACT_LABEL_WIDTH : DIAGRAM_SIZES.maxLabelWidth,
        );
        const labelSize = linesSize(lines, DIAGRAM_SIZES.labelSize);
        const pad = DIAGRAM_SIZES.labelPadding;
        const label: ElkLabel = {
          id: `${id}:label`,
          text: lines.map((line) => line.map((part) => part.text).join('')).join('\n'),
          width: labelSize.width + pad * 2,
          height: labelSize.height + pad * 2,
          // The edge runs through its label (drawn on a white ground): no doubt which line it names.
          layoutOptions: { 'elk.edgeLabels.inline': 'true' },
        };
        this.#labels.set(id, lines);
        this.#edges.set(id, { id, transition, source, target: stateId(target) });
        // An edge belongs to the lowest state containing both ends; ELK routes it there.
        const ownerPath = edgeOwner(transition.source, target);
        const owner = containers.get(ownerPath === '' ? 'root' : stateId(ownerPath)) ?? root;
        (owner.edges ??= []).push({
          id,
          sources: [source],
          targets: [stateId(target)],
          labels: [label],
        });
      });
    }
  }
}

function anyStateId(parentPath: string): string {
  return `anyState:${parentPath}`;
}

function pathOfId(id: string): string {
  return id.startsWith('state:') ? id.slice('state:'.length) : '';
}

/**
 * The layout id of the state at `path` (see {@link NodeLayout.id}).
 *
 * @example
 * layout.nodes.find((node) => node.id === stateId('CallingLlm'));
 */
export function stateId(path: string): string {
  return `state:${path}`;
}

function initialId(parentPath: string): string {
  return `initial:${parentPath}`;
}

function boxSize(title: string, details: TextLine[]): { width: number; height: number } {
  const sizes = DIAGRAM_SIZES;
  const titleWidth = measureText(title, sizes.titleSize, 'bold');
  const detailSize = linesSize(details, sizes.detailSize);
  const width = Math.max(titleWidth, detailSize.width) + sizes.boxPaddingX * 2;
  const titleHeight = sizes.titleSize * sizes.lineHeight;
  const height =
    titleHeight + sizes.boxPaddingY * 2 + (details.length > 0 ? sizes.dividerGap * 2 : 0);
  return { width: Math.ceil(width), height: Math.ceil(height + detailSize.height) };
}

function linesSize(lines: TextLine[], fontSize: number): { width: number; height: number } {
  const width = Math.max(0, ...lines.map((line) => lineWidth(line, fontSize)));
  return { width, height: Math.ceil(lines.length * fontSize * DIAGRAM_SIZES.lineHeight) };
}

function round(value: number): number {
  // Two decimals: enough for a crisp drawing, and no float noise in committed files.
  return Math.round(value * 100) / 100;
}

function dedupe(points: LayoutPoint[]): LayoutPoint[] {
  return points.filter(
    (point, i) => i === 0 || point.x !== points[i - 1]?.x || point.y !== points[i - 1]?.y,
  );
}
