/**
 * Coverage computed from the machine definition itself, not from a list kept by hand: every
 * state node, top-level and nested, and every transition (root-level `on`, each state's `on` and
 * `always`, nested states' included) is listed by walking `machine.root`, and a run marks what
 * it took by reading the transitions XState reports for each microstep to the inspection stream.
 *
 * Transitions are named by what they are — source, event, guard, targets — so a transition of
 * one machine can be looked up in a run of a changed copy (the meta-test does exactly that).
 */
import {
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type InspectionEvent,
  isMachineSnapshot,
} from 'xstate';
import { getStateNodes } from 'xstate/graph';

/** One transition of the chart, by name. */
export interface ChartTransition {
  /** `Source Event [guard] → Target`, e.g. `CallingLlm.Streaming LlmError [and(retryableError, attemptsLeft)] → Error`. */
  id: string;
  source: string;
  event: string;
}

/** The state nodes of `machine` (every node but the root), by id. */
export function listStates(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root).map((node) => node.id);
}

/** Every transition of `machine`, walking its state nodes from the root. */
export function listTransitions(machine: AnyStateMachine): ChartTransition[] {
  const transitions: ChartTransition[] = [];
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const list of node.transitions.values()) {
      for (const transition of list) transitions.push(describeTransition(transition));
    }
    for (const transition of node.always ?? []) transitions.push(describeTransition(transition));
  }
  const ids = new Set<string>();
  for (const { id } of transitions) {
    // Two transitions with one name could never be told apart by a run.
    if (ids.has(id)) throw new Error(`two transitions are both named '${id}'`);
    ids.add(id);
  }
  return transitions;
}

/** The name of a transition definition. */
export function describeTransition(transition: AnyTransitionDefinition): ChartTransition {
  const source = nodeName(transition.source);
  // `eventType` is typed from the machine's events; XState's own (`xstate.done.*`, wildcards)
  // and the empty descriptor of `always` are strings too.
  const eventType: string = String(transition.eventType);
  const event = eventType === '' ? 'always' : eventType;
  const guard = transition.guard === undefined ? '' : ` [${describeGuard(transition.guard)}]`;
  const targets = transition.target?.map(nodeName).join(', ') ?? '(stays)';
  return { id: `${source} ${event}${guard} → ${targets}`, source, event };
}

function nodeName(node: AnyStateNode): string {
  return node.path.length === 0 ? '(root)' : node.path.join('.');
}

function describeGuard(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    // `and([...])`, `or([...])` and `not(...)` are functions carrying their operands.
    const operands: unknown = (guard as { guards?: unknown }).guards;
    if (Array.isArray(operands)) return `${guard.name}(${operands.map(describeGuard).join(', ')})`;
    return guard.name === '' ? 'inline guard' : guard.name;
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) {
    return String(guard.type);
  }
  return 'guard';
}

/**
 * Collects the states entered and transitions taken by one or many runs, from XState's
 * inspection stream (`@xstate.microstep` carries the transitions of each microstep).
 *
 * @example
 * const recorder = new CoverageRecorder();
 * createActor(machine, { inspect: (event) => recorder.record(event) });
 */
export class CoverageRecorder {
  readonly states = new Set<string>();
  readonly transitions = new Set<string>();
  /**
   * Which events were taken where: `State.Nested EventType` (a crash as `crash(actor)`), for
   * events a parent or the root handles on behalf of a nested state.
   */
  readonly taken = new Set<string>();

  /** Records that the state `where` took `what` (an event type, or `crash(actor)`). */
  recordTaken(where: string, what: string): void {
    this.taken.add(`${where} ${what}`);
  }

  /** Records one inspection event; anything but a microstep is ignored. */
  record(event: InspectionEvent): void {
    if (event.type !== '@xstate.microstep') return;
    for (const transition of event._transitions) {
      this.transitions.add(describeTransition(transition).id);
    }
    this.recordSnapshot(event.snapshot);
  }

  /** Records the states a snapshot is in (the initial state is entered before any microstep). */
  recordSnapshot(snapshot: unknown): void {
    if (!isMachineSnapshot(snapshot)) return;
    for (const node of snapshot._nodes) if (node.path.length > 0) this.states.add(node.id);
  }
}

/** The state value of a snapshot from the inspection stream, as text. */
export function stateName(snapshot: unknown): string {
  return isMachineSnapshot(snapshot) ? JSON.stringify(snapshot.value) : '(not a machine)';
}

/** How much of `machine` a set of runs covered. */
export interface CoverageReport {
  /** State nodes: `topLevel` of them are children of the root, `nested` deeper. */
  states: { covered: number; total: number; topLevel: number; nested: number; missing: string[] };
  transitions: { covered: number; total: number; missing: string[] };
}

/**
 * Compares what the runs covered with what `machine` defines.
 *
 * @example
 * const report = coverageOf(agentMachine, recorder);
 * report.transitions.missing; // [] when every transition was taken
 */
export function coverageOf(machine: AnyStateMachine, recorder: CoverageRecorder): CoverageReport {
  const states = listStates(machine);
  const topLevel = getStateNodes(machine.root).filter((node) => node.path.length === 1).length;
  const transitions = listTransitions(machine).map(({ id }) => id);
  const missingStates = states.filter((id) => !recorder.states.has(id));
  const missingTransitions = transitions.filter((id) => !recorder.transitions.has(id));
  return {
    states: {
      covered: states.length - missingStates.length,
      total: states.length,
      topLevel,
      nested: states.length - topLevel,
      missing: missingStates,
    },
    transitions: {
      covered: transitions.length - missingTransitions.length,
      total: transitions.length,
      missing: missingTransitions,
    },
  };
}

/**
 * The one line `npm test` prints: `states a/b (t top-level, n nested), transitions c/d, paths p`.
 * Every state node counts once, a nested one as well as the state it is nested in.
 */
export function coverageLine(report: CoverageReport, paths: number): string {
  const { states, transitions } = report;
  return `states ${states.covered}/${states.total} (${states.topLevel} top-level, ${states.nested} nested), transitions ${transitions.covered}/${transitions.total}, paths ${paths}`;
}
