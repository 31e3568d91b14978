/**
 * The JSON graph model every renderer draws from: the machine's state tree and every transition,
 * read straight off XState's `StateNode` tree. Unlike `toDirectedGraph` from `xstate/graph`, it
 * keeps eventless (`always`) transitions, guards, actions, invoke results and root-level
 * transitions.
 */
import type { AnyStateMachine } from 'xstate';
import { describeAction } from './describeAction.js';
import { describeEvent, type TransitionTrigger } from './describeEvent.js';
import { describeGuard } from './describeGuard.js';

/**
 * The kind of a state node, as XState names it.
 *
 * @example
 * const kind: StateKind = 'final';
 */
export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/**
 * One state of the machine, with its children.
 *
 * @example
 * const calling: GraphState = toGraph(agentMachine).root.children[1]!;
 * calling.path; // 'CallingLlm'
 * calling.invoke; // ['llm']
 */
export interface GraphState {
  /**
   * The state's path below the root, joined with dots: `CallingLlm`, `Form.Editing`. This is
   * what `snapshot.value` names (for nested states, `snapshot.matches(path)`). The root's is `''`.
   */
  path: string;
  /** The state's key in its parent (the machine id for the root). */
  key: string;
  /** XState's id of the node (`agent.CallingLlm`). */
  id: string;
  kind: StateKind;
  /** Whether the parent enters this state first (the initial child of a compound state). */
  initial: boolean;
  /** `shallow` or `deep` for a history state, else `null`. */
  history: 'shallow' | 'deep' | null;
  /** Entry actions, by name. */
  entry: string[];
  /** Exit actions, by name. */
  exit: string[];
  /** Invoked actors, by `src` name (or id when the source is given inline). */
  invoke: string[];
  tags: string[];
  description: string | null;
  /** Child states in definition order. */
  children: GraphState[];
}

/**
 * One transition (one branch of a guarded list, one target set).
 *
 * @example
 * const giveUp: GraphTransition = {
 *   id: 'CallingLlm:LlmError:1',
 *   source: 'CallingLlm',
 *   targets: ['WaitingForUserInput'],
 *   eventType: 'LlmError',
 *   trigger: 'event',
 *   event: 'LlmError',
 *   guard: null,
 *   actions: ['giveUp'],
 *   reenter: false,
 *   label: 'LlmError / giveUp',
 * };
 */
export interface GraphTransition {
  /** Stable id: source path, event type and the branch's index among that event's branches. */
  id: string;
  /** Path of the state that owns the transition (`''` for a root-level transition). */
  source: string;
  /** Paths of the target states; empty for a transition that changes no state. */
  targets: string[];
  /** The raw event type (`''` for an eventless transition). */
  eventType: string;
  trigger: TransitionTrigger;
  /** The event as a reader sees it: `LlmError`, `always`, `onError(llm)`, `after 500ms`. */
  event: string;
  guard: string | null;
  actions: string[];
  /** Whether the source is exited and re-entered even when it is the target. */
  reenter: boolean;
  /** `event [guard] / actions`, as drawn on diagrams. */
  label: string;
}

/**
 * A machine as a plain, JSON-serialisable graph.
 *
 * @example
 * const graph: MachineGraph = toGraph(agentMachine);
 * graph.transitions.filter((t) => t.trigger === 'always').length; // 6
 */
export interface MachineGraph {
  /** The machine's id. */
  id: string;
  /** The root state; its children are the top-level states. */
  root: GraphState;
  /** Every transition, in definition order (a state's own before its children's). */
  transitions: GraphTransition[];
}

/** What this module reads from an XState `StateNode`; kept structural so no `any` leaks in. */
interface StateNodeView {
  key: string;
  id: string;
  path: string[];
  type: StateKind;
  history: false | 'shallow' | 'deep';
  states: Record<string, StateNodeView>;
  entry: unknown[];
  exit: unknown[];
  tags: string[];
  description: string | undefined;
  parent: StateNodeView | undefined;
  transitions: Map<string, TransitionView[]>;
  always: TransitionView[] | undefined;
  invoke: { id: string; src: unknown }[];
  initial: { target: StateNodeView[] } | undefined;
}

interface TransitionView {
  target: readonly StateNodeView[] | undefined;
  guard?: unknown;
  actions: readonly unknown[];
  reenter: boolean;
}

/**
 * Reads any XState v5 machine into a {@link MachineGraph}: every state (nested ones as
 * children), every transition including eventless ones, with guard and action names.
 *
 * @example
 * import { agentMachine } from 'agent-statechart';
 * const graph = toGraph(agentMachine);
 * graph.root.children.map((state) => state.path);
 * // ['WaitingForUserInput', 'CallingLlm', 'ProcessingLlmResponse', 'ExecutingTools', …]
 * graph.transitions.find((t) => t.source === 'ProcessingLlmResponse')?.label;
 * // 'always [responseRefused] / refuseToolCalls, reportStopReason'
 */
export function toGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as StateNodeView;
  const transitions: GraphTransition[] = [];
  const state = readState(root, new Set(), transitions);
  return { id: root.id, root: state, transitions };
}

/**
 * The graph of a machine, or the graph itself when it is one already: every renderer takes
 * either, so a caller that draws one machine several ways reads it once.
 *
 * @example
 * const graph = graphOf(agentMachine);
 * graphOf(graph) === graph; // true
 */
export function graphOf(machine: AnyStateMachine | MachineGraph): MachineGraph {
  return isMachineGraph(machine) ? machine : toGraph(machine);
}

function isMachineGraph(value: AnyStateMachine | MachineGraph): value is MachineGraph {
  return Array.isArray((value as { transitions?: unknown }).transitions);
}

function readState(
  node: StateNodeView,
  initialIds: ReadonlySet<string>,
  transitions: GraphTransition[],
): GraphState {
  // Invoked actors without an explicit id get generated ones (`0.form.Saving`); their results
  // are better named by the actor's source.
  const actorNames = new Map(
    node.invoke.map((invoke) => [
      invoke.id,
      typeof invoke.src === 'string' ? invoke.src : invoke.id,
    ]),
  );
  for (const [eventType, branches] of node.transitions) {
    branches.forEach((branch, index) =>
      transitions.push(readTransition(node, eventType, branch, index, actorNames)),
    );
  }
  (node.always ?? []).forEach((branch, index) =>
    transitions.push(readTransition(node, '', branch, index, actorNames)),
  );
  const childInitials = new Set((node.initial?.target ?? []).map((target) => target.id));
  const children = Object.values(node.states).map((child) =>
    readState(child, node.type === 'parallel' ? new Set() : childInitials, transitions),
  );
  return {
    path: pathOf(node),
    key: node.key,
    id: node.id,
    kind: node.type,
    initial: initialIds.has(node.id),
    history: node.history === false ? null : node.history,
    entry: node.entry.filter((action) => !isDelayPlumbing(action)).map(describeAction),
    exit: node.exit.filter((action) => !isDelayPlumbing(action)).map(describeAction),
    invoke: [...actorNames.values()],
    tags: [...node.tags],
    description: node.description ?? null,
    children,
  };
}

/**
 * XState implements `after` with an entry action that raises a delayed event and an exit action
 * that cancels it; the diagram shows the delayed transition instead.
 */
function isDelayPlumbing(action: unknown): boolean {
  if (typeof action !== 'function' && (typeof action !== 'object' || action === null)) return false;
  const { type, id, sendId } = action as { type?: unknown; id?: unknown; sendId?: unknown };
  const target = type === 'xstate.raise' ? id : type === 'xstate.cancel' ? sendId : undefined;
  return typeof target === 'string' && target.startsWith('xstate.after.');
}

function readTransition(
  source: StateNodeView,
  eventType: string,
  branch: TransitionView,
  index: number,
  actorNames: ReadonlyMap<string, string>,
): GraphTransition {
  const { trigger, text } =
    eventType === ''
      ? { trigger: 'always' as const, text: 'always' }
      : describeEvent(eventType, (id) => actorNames.get(id) ?? id);
  const guard = describeGuard(branch.guard);
  const actions = branch.actions.map(describeAction);
  const sourcePath = pathOf(source);
  return {
    id: `${sourcePath}:${eventType === '' ? 'always' : eventType}:${index}`,
    source: sourcePath,
    targets: (branch.target ?? []).map(pathOf),
    eventType,
    trigger,
    event: text,
    guard,
    actions,
    reenter: branch.reenter,
    label: transitionLabel(text, guard, actions),
  };
}

function pathOf(node: StateNodeView): string {
  return node.path.join('.');
}

/**
 * The label drawn on a transition: `event [guard] / action, action`.
 *
 * @example
 * transitionLabel('LlmError', 'retryableError && attemptsLeft', ['recordRetryableError']);
 * // 'LlmError [retryableError && attemptsLeft] / recordRetryableError'
 */
export function transitionLabel(event: string, guard: string | null, actions: string[]): string {
  const guardPart = guard === null ? '' : ` [${guard}]`;
  const actionPart = actions.length === 0 ? '' : ` / ${actions.join(', ')}`;
  return `${event}${guardPart}${actionPart}`;
}
