/**
 * The walk of the chart with `xstate/graph`: the abstract state graph, the shortest path to
 * every abstract state, one more path for every edge the shortest paths do not take (an edge
 * cover), and, appended to each, the shortest route back to rest, so queued input is seen to
 * arrive and every turn is seen to end.
 *
 * `createTestModel` refuses machines that invoke actors, so the walk hands `xstate/graph` a thin
 * actor logic over the machine whose events are the templates of `pathEvents.ts`.
 */
import type { ActorLogic, ActorScope, SnapshotFrom } from 'xstate';
import {
  adjacencyMapToArray,
  getAdjacencyMap,
  getShortestPaths,
  type TraversalOptions,
} from 'xstate/graph';
import { type AgentMachine, type AgentMachineInput, agentMachine } from '../../src/index.js';
import { describeStateValue } from '../../src/machine/index.js';
import { eventsByState } from './eventsByState.js';
import {
  concretize,
  describeEvent,
  isActorCrash,
  type PathEvent,
  toChartEvent,
} from './pathEvents.js';
import { stateKey } from './stateKey.js';
import type { GraphVariant } from './variants.js';

/** A snapshot of the agent machine. */
export type ChartSnapshot = SnapshotFrom<AgentMachine>;

/** The actor scope the machine's own `transition()` takes. */
export type ChartScope = Parameters<AgentMachine['transition']>[2];
type WalkLogic = ActorLogic<ChartSnapshot, PathEvent, AgentMachineInput>;

/** One generated path: the event templates to replay from the initial state. */
export interface GeneratedPath {
  variant: GraphVariant;
  /** The walk, then the route back to rest. */
  events: PathEvent[];
  /** How many of `events` are the walk (the rest is the route back to rest). */
  walkLength: number;
  description: string;
}

/** What the walk of one variant found. */
export interface ChartWalk {
  variant: GraphVariant;
  /** Abstract states reached. */
  states: number;
  /** Abstract edges (state, event) explored. */
  edges: number;
  paths: GeneratedPath[];
  /**
   * Abstract states from which no route of ordinary events (no interrupt, shutdown or crash)
   * leads back to rest: turns that cannot finish on their own.
   */
  stuck: string[];
  /** The shortest route of ordinary events from an abstract state back to rest, if any. */
  routeToRest: (key: string) => PathEvent[] | undefined;
}

/** Events that end or break a turn from outside; a turn must be able to finish without them. */
function isOrdinary(event: PathEvent): boolean {
  if (isActorCrash(event)) return false;
  return event.type !== 'Interrupt' && event.type !== 'ShutdownRequested';
}

function atRest(snapshot: ChartSnapshot): boolean {
  // Waiting after an interrupt for aborted calls to report (`SettlingCancelledCalls`) is not rest
  // yet: their results are not in the transcript.
  return (
    snapshot.status === 'active' &&
    describeStateValue(snapshot.value) === 'WaitingForUserInput.Ready'
  );
}

function walkLogic(machine: AgentMachine): WalkLogic {
  // The scope `xstate/graph` passes is typed for template events; the machine only ever sees
  // concrete ones, so the cast changes nothing at run time.
  const scoped = (scope: ActorScope<ChartSnapshot, PathEvent>) => scope as unknown as ChartScope;
  return {
    config: machine.config,
    transition: (snapshot, template, scope) =>
      machine.transition(
        snapshot,
        toChartEvent(concretize(template, snapshot.context, 0), snapshot.context),
        scoped(scope),
      ),
    getInitialSnapshot: (scope, input) => machine.getInitialSnapshot(scoped(scope), input),
    getPersistedSnapshot: (snapshot) => machine.getPersistedSnapshot(snapshot),
  };
}

/**
 * Walks `machine` (the agent machine unless a test passes a changed copy) in one variant.
 *
 * @example
 * const walk = walkChart(openVariant);
 * walk.paths.length; // one path per abstract edge not on a shortest path, and per leaf
 */
export function walkChart(variant: GraphVariant, machine: AgentMachine = agentMachine): ChartWalk {
  const logic = walkLogic(machine);
  const options: TraversalOptions<ChartSnapshot, PathEvent, AgentMachineInput> = {
    input: { config: variant.config },
    events: (snapshot) => eventsByState(snapshot, variant),
    serializeState: (snapshot) => stateKey(snapshot),
    stopWhen: (snapshot) => snapshot.status !== 'active',
  };
  // Every explored edge, with the keys of both ends.
  const edges = adjacencyMapToArray(getAdjacencyMap(logic, options)).map(
    ({ state, event, nextState }) => ({
      from: stateKey(state),
      event,
      to: stateKey(nextState),
      state,
      nextState,
    }),
  );
  const shortest = new Map<string, PathEvent[]>();
  for (const path of getShortestPaths(logic, options)) {
    // `xstate/graph` puts a synthetic `xstate.init` step first.
    shortest.set(
      stateKey(path.state),
      path.steps.slice(1).map((step) => step.event),
    );
  }

  // The shortest ordinary route from each state back to rest, found backwards from rest.
  const incoming = new Map<string, Array<{ from: string; event: PathEvent }>>();
  const snapshots = new Map<string, ChartSnapshot>();
  for (const { from, event, to, state, nextState } of edges) {
    snapshots.set(from, state);
    snapshots.set(to, nextState);
    if (!isOrdinary(event)) continue;
    const list = incoming.get(to) ?? [];
    list.push({ from, event });
    incoming.set(to, list);
  }
  const routeHome = new Map<string, { event: PathEvent; next: string } | null>();
  const frontier: string[] = [];
  for (const [key, snapshot] of snapshots) {
    if (atRest(snapshot)) {
      routeHome.set(key, null);
      frontier.push(key);
    }
  }
  for (let index = 0; index < frontier.length; index++) {
    const key = frontier[index]!;
    for (const { from, event } of incoming.get(key) ?? []) {
      if (routeHome.has(from)) continue;
      routeHome.set(from, { event, next: key });
      frontier.push(from);
    }
  }
  const stuck = [...snapshots].flatMap(([key, snapshot]) =>
    snapshot.status === 'active' && !routeHome.has(key) ? [key] : [],
  );
  const routeToRest = (key: string): PathEvent[] | undefined => {
    if (!routeHome.has(key)) return undefined;
    const route: PathEvent[] = [];
    for (let hop = routeHome.get(key); hop; hop = routeHome.get(hop.next)) route.push(hop.event);
    return route;
  };

  const walks: Array<{ events: PathEvent[]; end: string }> = [];
  for (const [key, events] of shortest) walks.push({ events, end: key });
  for (const { from, event, to } of edges) {
    const prefix = shortest.get(from);
    if (prefix === undefined) continue;
    // An edge on the shortest path to its target repeats that path; `withoutPrefixes` drops it.
    walks.push({ events: prefix.concat([event]), end: to });
  }
  const paths = withoutPrefixes(
    walks.map(({ events, end }) => ({ walk: events, all: events.concat(routeToRest(end) ?? []) })),
  ).map(({ walk, all }) => ({
    variant,
    events: all,
    walkLength: walk.length,
    description: describePath(variant, all, walk.length),
  }));
  return { variant, states: snapshots.size, edges: edges.length, paths, stuck, routeToRest };
}

function describePath(variant: GraphVariant, events: PathEvent[], walkLength: number): string {
  const walked = events.slice(0, walkLength).map(describeEvent).join(' → ') || '(initial state)';
  const home = events.slice(walkLength).map(describeEvent).join(' → ');
  return `${variant.name}: ${walked}${home === '' ? '' : ` ⇒ back to rest: ${home}`}`;
}

/** Drops every path whose events are a prefix of another path's: the longer one walks it too. */
function withoutPrefixes<T extends { all: PathEvent[] }>(paths: T[]): T[] {
  const ids = new Map<string, number>();
  const idOf = (event: PathEvent) => {
    const json = JSON.stringify(event);
    let id = ids.get(json);
    if (id === undefined) ids.set(json, (id = ids.size));
    return id;
  };
  const keyed = paths.map((path) => ({ path, ids: path.all.map(idOf) }));
  keyed.sort((a, b) => b.ids.length - a.ids.length);
  const walked = new Set<string>();
  const kept: T[] = [];
  for (const { path, ids: sequence } of keyed) {
    const whole = sequence.join(',');
    if (walked.has(whole)) continue;
    kept.push(path);
    for (let length = 0; length <= sequence.length; length++) {
      walked.add(sequence.slice(0, length).join(','));
    }
  }
  return kept;
}
