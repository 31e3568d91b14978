/**
 * Pure mode: Loom's `handleEvent(event) → actions` over the same statechart the actors run.
 * No I/O, no clock, no randomness outside the seeded jitter: the same events give the same
 * actions and snapshots, so an event log replays exactly.
 */
import { type ActorScope, type AnyActorScope, createActor, type SnapshotFrom } from 'xstate';
import { type AgentMachine, agentMachine, displayOfDelta } from './agentMachine.js';
import { type AgentContext, createInitialContext, resolveConfigShared } from './context.js';
import { DeltaBatch } from './deltaBatch.js';
import type {
  AgentAction,
  AgentConfig,
  AgentEvent,
  AgentStateName,
  LlmStreamDelta,
  Message,
} from './types.js';
import { validateEvent } from './validateEvent.js';

/**
 * Why an event changed nothing.
 *
 * - `MALFORMED_EVENT`: the event does not have the shape of an `AgentEvent`;
 * - `EVENT_NOT_ACCEPTED`: a valid event the current state does not take (a late `ToolCompleted`
 *   for a cancelled call, `LlmTextDelta` while idle, …);
 * - `AGENT_STOPPED`: the agent reached `ShuttingDown`, which is final;
 * - `TRANSITION_FAILED`: the chart itself threw; the agent keeps its previous state.
 *
 * @example
 * const code: AgentDiagnosticCode = 'EVENT_NOT_ACCEPTED';
 */
export type AgentDiagnosticCode =
  'MALFORMED_EVENT' | 'EVENT_NOT_ACCEPTED' | 'AGENT_STOPPED' | 'TRANSITION_FAILED';

/**
 * A report about an event that changed nothing. Never thrown: observe it with `onDiagnostic`.
 *
 * @example
 * const core = new AgentCore({}, { onDiagnostic: (d) => console.warn(d.message) });
 * core.handleEvent({ type: 'Interrupt' });
 * // warns: "Interrupt is not accepted in state WaitingForUserInput; nothing changed"
 */
export interface AgentDiagnostic {
  code: AgentDiagnosticCode;
  message: string;
  state: AgentStateName;
  event: unknown;
}

/**
 * Options of `AgentCore` besides the chart's config.
 *
 * @example
 * const options: AgentCoreOptions = { onDiagnostic: (d) => log.warn(d) };
 */
export interface AgentCoreOptions {
  /** Called for every event that changed nothing, with the reason. */
  onDiagnostic?: (diagnostic: AgentDiagnostic) => void;
  /** Start from an existing transcript (ignored by `fromSnapshot`, which carries its own). */
  messages?: Message[];
}

/**
 * The context as stored: everything but the configuration, which the code that restores the
 * agent supplies again (so tools and limits may change between runs, and a stored session does
 * not carry kilobytes of tool schemas).
 *
 * @example
 * const stored: StoredContext = core.snapshot().context;
 */
export type StoredContext = Omit<AgentContext, 'config' | 'messageCount'>;

/**
 * A stored agent: plain JSON, safe to `JSON.stringify`, with a version for future migrations.
 *
 * @example
 * const json = JSON.stringify(core.snapshot());
 * const again = AgentCore.fromSnapshot(JSON.parse(json), config);
 */
export interface AgentSnapshot {
  version: 1;
  state: AgentStateName;
  context: StoredContext;
}

/**
 * The stored form of a context: drops the configuration, writes out exactly this snapshot's
 * messages (a copy the caller owns: the live transcript keeps growing), shares everything else.
 *
 * @example
 * const snapshot = { version: 1, state: core.state, context: toStoredContext(core.context) };
 */
export function toStoredContext(context: AgentContext): StoredContext {
  const { config: _config, messageCount, messages, ...rest } = context;
  return { messages: messages.slice(0, messageCount), ...rest };
}

type MachineSnapshot = SnapshotFrom<AgentMachine>;
type PureScope = ActorScope<MachineSnapshot, AgentEvent, AnyActorScope['system'], AgentAction>;

/**
 * The agent statechart driven by hand: feed it events, perform the actions it returns.
 *
 * Built on XState's own `transition` over `agentMachine` (one definition, one diagram, one set
 * of generated tests), with one actor scope reused across events so an event costs what an actor
 * send does. A streamed delta costs less: in `CallingLlm`, where the chart only appends it to the
 * context, `handleEvent` appends it to a buffer and returns its `DisplayMessage` at once; the
 * chart takes the buffered deltas, merged, before the next other event or a read of `context`
 * or `snapshot()`, so what any of them shows is what delta-by-delta transitions would have left.
 *
 * @example
 * const core = new AgentCore({ maxRetries: 3 });
 * const actions = core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
 * // actions: [{ type: 'SendLlmRequest', request: { model, maxTokens, messages: [...] } }]
 * core.state; // 'CallingLlm'
 */
export class AgentCore {
  #snapshot: MachineSnapshot;
  #config: AgentConfig;
  // Made on first subscription: most cores never have a listener, and idle cores are many.
  #listeners: Set<(diagnostic: AgentDiagnostic) => void> | undefined;
  /** Deltas taken but not yet handed to the chart (see the class comment); made per stream. */
  #deltas: DeltaBatch | undefined;

  constructor(config: AgentConfig = {}, options: AgentCoreOptions = {}) {
    resolveConfigShared(config); // fail fast, with a clear message, on a bad config
    this.#config = config;
    if (options.onDiagnostic) this.onDiagnostic(options.onDiagnostic);
    const input =
      options.messages === undefined ? { config } : { config, messages: options.messages };
    // The initial WaitForInput is not returned: nobody has asked anything yet.
    this.#snapshot = collectActions(() => agentMachine.getInitialSnapshot(pureScope(), input))[0];
  }

  /**
   * Restores an agent from `snapshot()` output (after a round trip through JSON, a database, …).
   * `config` is the configuration to run with (snapshots do not store one), so tools and limits
   * may change between runs. The snapshot object is adopted, not copied: pass a fresh one (such
   * as `JSON.parse` output) and do not change it afterwards.
   *
   * @example
   * const core = AgentCore.fromSnapshot(JSON.parse(stored), { maxRetries: 3 });
   */
  static fromSnapshot(
    snapshot: AgentSnapshot,
    config: AgentConfig = {},
    options: Omit<AgentCoreOptions, 'messages'> = {},
  ): AgentCore {
    if (snapshot?.version !== 1 || typeof snapshot.state !== 'string' || !snapshot.context) {
      throw new TypeError(
        'not an AgentCore snapshot: expected { version: 1, state, context } as returned by core.snapshot()',
      );
    }
    const core = new AgentCore(config, options);
    const fresh = createInitialContext({ config });
    // The snapshot is adopted, not deep-copied: the chart never writes to an array it did not
    // allocate (the first append copies the stored transcript), and copying a long transcript
    // up front costs milliseconds. Fields a newer version added fall back to their defaults; a
    // stored config is ignored.
    const context: AgentContext = { ...fresh, ...snapshot.context, config: fresh.config };
    context.messageCount = context.messages.length;
    core.#snapshot = agentMachine.resolveState({ value: snapshot.state, context });
    return core;
  }

  /**
   * Feeds one event to the chart and returns what the caller must do, in order. An event that is
   * malformed, or not valid in the current state, changes nothing, returns `[]` and is reported
   * through `onDiagnostic`; it is never thrown.
   *
   * @example
   * for (const action of core.handleEvent({ type: 'LlmTextDelta', content: 'Hel' })) {
   *   if (action.type === 'DisplayMessage') process.stdout.write(action.text);
   * }
   */
  handleEvent(event: AgentEvent): AgentAction[] {
    const problem = validateEvent(event);
    if (problem !== null) return this.#reject('MALFORMED_EVENT', problem, event);
    if (this.done) {
      return this.#reject(
        'AGENT_STOPPED',
        `${event.type} ignored: the agent is in ShuttingDown, which is final`,
        event,
      );
    }
    if (isStreamDelta(event) && APPEND_ONLY_STATES.has(this.#snapshot.value)) {
      (this.#deltas ??= new DeltaBatch(true)).push(event);
      // What the chart emits for the delta: appendToolCallFragment emits nothing.
      const display = event.type === 'LlmTextDelta' ? displayOfDelta(event) : null;
      return display === null ? [] : [display];
    }
    // A response carries everything its deltas did, and the chart drops its streamed copy when
    // the response arrives: buffered deltas are handed over first only if it is refused.
    if (event.type !== 'LlmCompleted') this.#foldDeltas();
    const before = this.#snapshot;
    const step = transitionFrom(before, event);
    if (typeof step === 'string' || step[0] === before) {
      this.#foldDeltas();
      return typeof step === 'string'
        ? this.#reject('TRANSITION_FAILED', step, event)
        : this.#reject(
            'EVENT_NOT_ACCEPTED',
            `${event.type} is not accepted in state ${this.state}; nothing changed`,
            event,
          );
    }
    this.#deltas = undefined; // after an LlmCompleted, the response made them redundant
    this.#snapshot = step[0];
    return step[1];
  }

  /** The current top-level state, one of the seven names. */
  get state(): AgentStateName {
    return this.#snapshot.value;
  }

  /** The current context (immutable: every event produces a new one). */
  get context(): AgentContext {
    this.#foldDeltas();
    return this.#snapshot.context;
  }

  /** True once the agent reached `ShuttingDown`. */
  get done(): boolean {
    // A snapshot restored in ShuttingDown may not carry status 'done'; the state name decides.
    return this.#snapshot.status !== 'active' || this.#snapshot.value === 'ShuttingDown';
  }

  /** The configuration this agent runs with. */
  get config(): AgentConfig {
    return this.#config;
  }

  /**
   * The agent as plain JSON (`JSON.stringify` it to store it), without its configuration, which
   * `fromSnapshot` takes again. It shares the context's arrays rather than copying them.
   *
   * @example
   * await db.put(sessionId, JSON.stringify(core.snapshot()));
   */
  snapshot(): AgentSnapshot {
    return { version: 1, state: this.state, context: toStoredContext(this.context) };
  }

  /**
   * Subscribes to diagnostics (events that changed nothing). Returns the unsubscribe function.
   *
   * @example
   * const stop = core.onDiagnostic((d) => console.warn(d.code, d.message));
   */
  onDiagnostic(listener: (diagnostic: AgentDiagnostic) => void): () => void {
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /**
   * Hands the chart the deltas taken since its last transition, merged. They only append (their
   * text was displayed when they were taken), so no action comes out of these transitions.
   */
  #foldDeltas(): void {
    const batch = this.#deltas;
    if (batch === undefined) return;
    this.#deltas = undefined;
    for (const delta of batch.drain()) {
      const step = transitionFrom(this.#snapshot, delta);
      if (typeof step === 'string') this.#reject('TRANSITION_FAILED', step, delta);
      else this.#snapshot = step[0];
    }
  }

  #reject(code: AgentDiagnosticCode, message: string, event: unknown): AgentAction[] {
    const diagnostic: AgentDiagnostic = { code, message, state: this.state, event };
    if (this.#listeners) for (const listener of this.#listeners) listener(diagnostic);
    return [];
  }
}

/** The transition `event` takes from `snapshot` with its actions, or why it failed. */
function transitionFrom(
  snapshot: MachineSnapshot,
  event: AgentEvent,
): [MachineSnapshot, AgentAction[]] | string {
  let step: [MachineSnapshot, AgentAction[]];
  try {
    step = collectActions(() => agentMachine.transition(snapshot, event, pureScope()));
  } catch (error) {
    return `${event.type} failed: ${String(error)}`;
  }
  return step[0].status === 'error' ? `${event.type} failed: ${String(step[0].error)}` : step;
}

function isStreamDelta(event: AgentEvent): event is LlmStreamDelta {
  return event.type === 'LlmTextDelta' || event.type === 'LlmToolCallDelta';
}

/** The one action each delta's transition runs where a delta does nothing but append. */
const APPENDING_ACTIONS: Record<LlmStreamDelta['type'], string> = {
  LlmTextDelta: 'appendStreamedText',
  LlmToolCallDelta: 'appendToolCallFragment',
};

/**
 * The states where both kinds of delta only append to the context, read off the chart: the
 * state's one transition for each has no guard, no target and only its appending action, nothing
 * above it handles deltas, and it has no eventless transition a longer text could trigger.
 * `handleEvent` buffers deltas there instead of running a transition per delta; a chart that
 * did more with a delta in some state would not be short-cut in it.
 */
const APPEND_ONLY_STATES: ReadonlySet<string> = new Set(appendOnlyStates());

function appendOnlyStates(): string[] {
  const { root } = agentMachine;
  const types = Object.keys(APPENDING_ACTIONS);
  if (['*', ...types].some((type) => root.transitions.has(type))) return [];
  return Object.entries(root.states)
    .filter(([, node]) => (node.always?.length ?? 0) === 0 && !node.transitions.has('*'))
    .filter(([, node]) =>
      Object.entries(APPENDING_ACTIONS).every(([type, action]) => {
        const transitions = node.transitions.get(type);
        if (transitions?.length !== 1) return false;
        const [only] = transitions;
        return (
          only!.guard === undefined &&
          only!.target === undefined &&
          only!.actions.length === 1 &&
          only!.actions[0] === action
        );
      }),
    )
    .map(([name]) => name);
}

/** Where the shared scope puts emitted actions during one synchronous transition. */
let collecting: AgentAction[] | null = null;
let sharedScope: PureScope | undefined;

/** Runs one transition and returns its result with the actions it emitted. */
function collectActions<T>(step: () => T): [T, AgentAction[]] {
  const actions: AgentAction[] = [];
  collecting = actions;
  try {
    return [step(), actions];
  } finally {
    collecting = null;
  }
}

/**
 * An actor scope that performs nothing and collects the emitted `AgentAction`s. XState's own
 * `transition()` builds a throwaway actor for every call; one scope shared by every `AgentCore`
 * (made on first use) is what makes pure mode cost about what an actor send costs, and keeps an
 * idle core down to its snapshot. Transitions are synchronous, so one collector at a time is
 * enough. Children it creates are never started.
 */
function pureScope(): PureScope {
  sharedScope ??= createPureScope();
  return sharedScope;
}

function createPureScope(): PureScope {
  const self = createActor(agentMachine, { input: undefined });
  return {
    self,
    id: '',
    sessionId: '',
    logger: () => undefined,
    defer: () => undefined,
    emit: () => undefined,
    stopChild: () => undefined,
    system: self.system,
    actionExecutor: (action) => {
      if (action.type === 'xstate.emit') {
        collecting?.push((action.params as { event: AgentAction }).event);
      }
    },
  };
}
