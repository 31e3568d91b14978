/**
 * Pure mode: Loom's `handleEvent(event) → actions` over the same statechart the actors run.
 * No I/O, no clock, no randomness outside the seeded jitter: the same events give the same
 * actions and snapshots, so an event log replays exactly.
 */
import { type ActorScope, type AnyActorScope, createActor, type SnapshotFrom } from 'xstate';
import { type AgentMachine, agentMachine } from './agentMachine.js';
import { type AgentDiagnosticCode, admit, isStopped } from './admission.js';
import { AgentStatechartError, errorMessage } from './agentStatechartError.js';
import {
  type AgentContext,
  createInitialContext,
  NEW_TURN,
  NEW_WINDOW,
  resolveConfig,
  type TranscriptWindow,
  type TurnState,
} from './context.js';
import { type AgentAction, type LlmCallEnding } from './actions.js';
import { type AgentConfig } from './config.js';
import { type AgentEvent } from './events.js';
import { type Message } from './messages.js';
import {
  approvalsWaiting,
  hasQueuedInput,
  questionsWaiting,
  subagentsRunning,
  toolHooksRunning,
  toolsSettling,
} from './guards.js';
import {
  AGENT_STATE_NAMES,
  type AgentStateName,
  type AgentStateValue,
  describeStateValue,
  topStateOf,
} from './stateNames.js';
import { checkEvent } from './validateEvent.js';
import { answerOpenToolUses } from './transcript.js';
import { NO_USAGE, type UsageTotals } from './usage.js';

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
export type StoredContext = Omit<AgentContext, 'config'>;

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
 * The stored form of a context: everything but the configuration. Shares the context's values,
 * which never change.
 *
 * @example
 * const snapshot = { version: 1, state: core.state, context: toStoredContext(core.context) };
 */
export function toStoredContext(context: AgentContext): StoredContext {
  const { config: _config, ...stored } = context;
  return stored;
}

/**
 * The context a stored agent resumes with, under the configuration it runs with now. Fields a
 * newer version added fall back to their defaults. Text streamed by a model call that was in
 * flight is dropped: the call is made again and streams it again.
 *
 * @example
 * const context = restoreContext(JSON.parse(stored), { maxRetries: 3 });
 */
export function restoreContext(snapshot: AgentSnapshot, config: AgentConfig): AgentContext {
  const fresh = createInitialContext({ config });
  const stored = snapshot.context;
  // A snapshot of a version that summed fewer fields: what it did not count is unknown.
  const usage = usageTotalsOf(stored.usage);
  if (fresh.config.maxBudgetUsd !== null && usage.costUsd === null) {
    // A budget the agent cannot keep must not look kept.
    throw new AgentStatechartError(
      'INVALID_CONFIG',
      'maxBudgetUsd cannot be kept: what this agent has spent so far is unknown (a model call was priced by no price in the table, or the snapshot comes from a version that did not sum costs); restore it without maxBudgetUsd',
    );
  }
  // Only the fields this version has: one an older version kept (and this one dropped) would
  // be copied on every step for nothing.
  const kept = Object.fromEntries(
    Object.keys(fresh)
      .filter((key) => Object.hasOwn(stored, key))
      .map((key) => [key, stored[key as keyof StoredContext]]),
  ) as Partial<StoredContext>;
  return {
    ...fresh,
    ...kept,
    usage,
    turn: turnOf(stored),
    window: windowOf(stored),
    streamingText: '',
    streamingToolCalls: [],
    config: fresh.config,
  };
}

/** A stored turn, or one from a version that kept only the turn's usage (`turnUsage`). */
function turnOf(stored: StoredContext): TurnState {
  const older = (stored as { turnUsage?: Partial<UsageTotals> }).turnUsage;
  return stored.turn ?? { ...NEW_TURN, usage: usageTotalsOf(older) };
}

/** A stored window, or one from a version that kept only how the last call ended (`lastCallEnding`). */
function windowOf(stored: StoredContext): TranscriptWindow {
  const older = (stored as { lastCallEnding?: LlmCallEnding | null }).lastCallEnding;
  return stored.window ?? { ...NEW_WINDOW, lastCall: older ?? null };
}

function usageTotalsOf(stored: Partial<UsageTotals> | undefined): UsageTotals {
  if (stored === undefined) return NO_USAGE;
  return { ...NO_USAGE, ...stored, costUsd: stored.costUsd === undefined ? null : stored.costUsd };
}

/**
 * The machine snapshot of a stored agent, for `machine` (the chart, or the chart with its actors
 * provided): what `createActor(machine, { snapshot })` starts from. Nothing runs until a `Resume`
 * says what to do again.
 *
 * @example
 * const actor = createActor(machine, { snapshot: restoreMachineSnapshot(machine, stored, config) });
 */
export function restoreMachineSnapshot(
  machine: AgentMachine,
  snapshot: AgentSnapshot,
  config: AgentConfig,
): SnapshotFrom<AgentMachine> {
  const context = restoreContext(snapshot, config);
  return machine.resolveState({ value: stateValueOf(snapshot.state, context), context });
}

/**
 * Where inside its top-level state a stored agent stands. A snapshot stores only the top-level
 * name: the nested state follows from the context (calls an interrupt aborted and not yet
 * settled mean `WaitingForUserInput.SettlingCancelledCalls`; a prompt held in the queue,
 * `WaitingForUserInput.CheckingPrompt`, since a queued prompt starts a turn at once otherwise; a call waiting for approval, `ExecutingTools`' `Approvals.Waiting`).
 * `ProcessingLlmResponse` is only ever stored while it waits for the `stop` hook, since it
 * routes a response at once otherwise. A compaction underway means `CheckingCompaction` until the
 * `preCompact` hook answered, `Compacting` after; in `CallingLlm`, `Streaming` otherwise.
 */
function stateValueOf(state: AgentStateName, context: AgentContext): AgentStateValue {
  if (state === 'ExecutingTools') {
    const region = (waiting: boolean) => (waiting ? 'Waiting' : 'Idle');
    return {
      ExecutingTools: {
        Hooks: toolHooksRunning(context) ? 'Running' : 'Idle',
        Approvals: region(approvalsWaiting(context)),
        Subagents: subagentsRunning(context) ? 'Running' : 'Idle',
        Questions: region(questionsWaiting(context)),
      },
    };
  }
  if (state === 'ProcessingLlmResponse') return { ProcessingLlmResponse: 'CheckingStop' };
  const { compacting } = context.window;
  const compactionStage = compacting?.checked ? 'Compacting' : 'CheckingCompaction';
  if (state === 'CallingLlm') {
    return { CallingLlm: compacting === null ? 'Streaming' : compactionStage };
  }
  if (state !== 'WaitingForUserInput') return state;
  if (toolsSettling(context)) return { WaitingForUserInput: 'SettlingCancelledCalls' };
  if (compacting !== null) return { WaitingForUserInput: compactionStage };
  // Restored with the hook off, the held prompt is still checked once: a `Resume` asks a hook
  // that is not there, which lets it through, and input keeps its order behind it.
  return { WaitingForUserInput: hasQueuedInput(context) ? 'CheckingPrompt' : 'Ready' };
}

/**
 * Why `value` cannot be restored as an {@link AgentSnapshot}, or `null` when it can.
 *
 * @example
 * checkSnapshot({ version: 2 }); // 'not an AgentCore snapshot: …'
 */
export function checkSnapshot(value: unknown): string | null {
  const snapshot = value as Partial<AgentSnapshot> | null;
  if (typeof snapshot !== 'object' || snapshot === null || snapshot.version !== 1) {
    return 'not an AgentCore snapshot: expected { version: 1, state, context } as returned by core.snapshot()';
  }
  if (!AGENT_STATE_NAMES.includes(snapshot.state as AgentStateName)) {
    return `not an AgentCore snapshot: state must be one of ${AGENT_STATE_NAMES.join(', ')}; got ${errorMessage(snapshot.state)}`;
  }
  const context = snapshot.context as Partial<StoredContext> | undefined;
  if (typeof context !== 'object' || context === null || !Array.isArray(context.messages)) {
    return 'not an AgentCore snapshot: context must be an object with a messages array';
  }
  return null;
}

type MachineSnapshot = SnapshotFrom<AgentMachine>;
/** The scope pure transitions run in. */
export type PureScope = ActorScope<
  MachineSnapshot,
  AgentEvent,
  AnyActorScope['system'],
  AgentAction
>;

/**
 * The agent statechart driven by hand: feed it events, perform the actions it returns.
 *
 * Each event goes through the machine's own `transition` (one definition, one diagram, one set
 * of generated tests), in an actor scope that belongs to this core and performs nothing: it
 * collects the actions the chart emits, and children it creates are never started.
 *
 * @example
 * const core = new AgentCore({ maxRetries: 3 });
 * const actions = core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
 * // actions: [{ type: 'SendLlmRequest', request: { model, maxTokens, messages: [...] } }]
 * core.state; // 'CallingLlm'
 */
export class AgentCore {
  #snapshot: MachineSnapshot;
  readonly #config: AgentConfig;
  readonly #scope: PureScope;
  /** The actions emitted by the transition running now. */
  #emitted: AgentAction[] = [];
  #listeners: Set<(diagnostic: AgentDiagnostic) => void> | undefined;

  constructor(config: AgentConfig = {}, options: AgentCoreOptions = {}) {
    // Throws on a bad config, with a message that says the fix.
    resolveConfig(config);
    this.#config = config;
    this.#scope = collectingScope(createActor(agentMachine, { input: undefined }), (action) =>
      this.#emitted.push(action),
    );
    if (options.onDiagnostic) this.onDiagnostic(options.onDiagnostic);
    const input =
      options.messages === undefined ? { config } : { config, messages: options.messages };
    // The initial WaitForInput is not returned: nobody has asked anything yet.
    this.#snapshot = agentMachine.getInitialSnapshot(this.#scope, input);
    this.#emitted = [];
    if (options.messages !== undefined) {
      const repair = transcriptRepair(options.messages);
      if (repair !== null) this.#reject('TRANSCRIPT_REPAIRED', repair, undefined);
    }
  }

  /**
   * Restores an agent from `snapshot()` output (after a round trip through JSON, a database, …).
   * `config` is the configuration to run with (snapshots do not store one), so tools and limits
   * may change between runs. A model call that was in flight starts over: its streamed text is
   * dropped, and the caller sends `buildRequest(core.context)` again.
   *
   * @example
   * const core = AgentCore.fromSnapshot(JSON.parse(stored), { maxRetries: 3 });
   */
  static fromSnapshot(
    snapshot: AgentSnapshot,
    config: AgentConfig = {},
    options: Omit<AgentCoreOptions, 'messages'> = {},
  ): AgentCore {
    const problem = checkSnapshot(snapshot);
    if (problem !== null) throw new AgentStatechartError('INVALID_SNAPSHOT', problem);
    const core = new AgentCore(config, options);
    core.#snapshot = restoreMachineSnapshot(agentMachine, snapshot, config);
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
    // The chart gets a plain-JSON copy: nothing the caller still holds can reach the context.
    const checked = checkEvent(event);
    if (!checked.ok) return this.#reject('MALFORMED_EVENT', checked.problem, event);
    return this.takeCheckedEvent(checked.event, event) ?? [];
  }

  /**
   * @internal `handleEvent` for an event `checkEvent` already copied (a durable session records
   * that copy), so it is not copied twice; diagnostics name `event`, the caller's own. Answers
   * `null` when the chart refused the event (and reported why), so a durable session knows
   * whether to record it.
   */
  takeCheckedEvent(plain: AgentEvent, event: unknown = plain): AgentAction[] | null {
    const before = this.#snapshot;
    if (isStopped(before)) return this.#refusal(before, plain, event);
    let next: MachineSnapshot;
    const emitted: AgentAction[] = [];
    this.#emitted = emitted;
    try {
      next = agentMachine.transition(before, plain, this.#scope);
    } catch (error) {
      return this.#refuse(
        'TRANSITION_FAILED',
        `${plain.type} failed: ${errorMessage(error)}`,
        event,
      );
    } finally {
      this.#emitted = [];
    }
    if (next.status === 'error') {
      return this.#refuse(
        'TRANSITION_FAILED',
        `${plain.type} failed: ${errorMessage(next.error)}`,
        event,
      );
    }
    // No transition took the event (XState then hands back the same snapshot, and nothing ran):
    // the chart's one admission rule says why. Asking it only then spares every accepted event,
    // each streamed delta among them, a second walk of the chart.
    if (next === before && emitted.length === 0) return this.#refusal(before, plain, event);
    this.#snapshot = next;
    return emitted;
  }

  /** The refusal of an event no transition took, as `admit` words it. */
  #refusal(before: MachineSnapshot, plain: AgentEvent, event: unknown): null {
    const refusal = admit(before, plain) ?? {
      code: 'EVENT_NOT_ACCEPTED' as const,
      message: `${plain.type} changed nothing in state ${describeStateValue(before.value)}`,
    };
    return this.#refuse(refusal.code, refusal.message, event);
  }

  /** The current top-level state, one of the seven names. */
  get state(): AgentStateName {
    return topStateOf(this.#snapshot.value);
  }

  /**
   * Where the chart is, nested states included (`{ WaitingForUserInput: 'SettlingCancelledCalls' }`
   * while tool calls an interrupt aborted are still reporting).
   */
  get stateValue(): AgentStateValue {
    return this.#snapshot.value;
  }

  /** The current context. It never changes: every event produces a new one. */
  get context(): AgentContext {
    return this.#snapshot.context;
  }

  /**
   * Whether the chart would take `event` where it stands (the same decision `handleEvent` makes
   * before it reports `EVENT_NOT_ACCEPTED`).
   *
   * @example
   * if (core.accepts(resume)) perform(core.handleEvent(resume));
   */
  accepts(event: AgentEvent): boolean {
    return admit(this.#snapshot, event) === null;
  }

  /** True once the agent reached `ShuttingDown`. */
  get done(): boolean {
    return isStopped(this.#snapshot);
  }

  /** The configuration this agent runs with. */
  get config(): AgentConfig {
    return this.#config;
  }

  /**
   * The agent as plain JSON (`JSON.stringify` it to store it), without its configuration, which
   * `fromSnapshot` takes again.
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

  #reject(code: AgentDiagnosticCode, message: string, event: unknown): AgentAction[] {
    this.#refuse(code, message, event);
    return [];
  }

  /** Reports why the chart changed nothing. */
  #refuse(code: AgentDiagnosticCode, message: string, event: unknown): null {
    const diagnostic: AgentDiagnostic = { code, message, state: this.state, event };
    if (this.#listeners) for (const listener of this.#listeners) listener(diagnostic);
    return null;
  }
}

/**
 * What a diagnostic says of a transcript to start from whose calls were not all answered, or
 * `null` when they were.
 *
 * @example
 * transcriptRepair(messages); // "the transcript to start from left tool_use t1 unanswered: …"
 */
export function transcriptRepair(messages: readonly Message[]): string | null {
  const { answered } = answerOpenToolUses(messages);
  if (answered.length === 0) return null;
  const calls = answered.join(', ');
  return `the transcript to start from left tool_use ${calls} without a tool_result; ${answered.length === 1 ? 'it was' : 'they were'} answered as interrupted (it may or may not have taken effect) before the first request`;
}

/**
 * An actor scope that performs nothing and hands each action the chart emits to `collect`
 * (what XState's own `transition()` does, without building a throwaway actor for every event).
 * `self` lends its system; it is never started, so children created in the scope never run.
 *
 * @example
 * const scope = collectingScope(createActor(agentMachine, { input: undefined }), (a) => out.push(a));
 * const next = agentMachine.transition(snapshot, event, scope);
 */
export function collectingScope(
  self: PureScope['self'] & { system: PureScope['system'] },
  collect: (action: AgentAction) => void,
): PureScope {
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
      if (action.type === 'xstate.emit') collect((action.params as { event: AgentAction }).event);
    },
  };
}
