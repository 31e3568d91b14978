/**
 * Turns XState's inspection stream into what the inspector page shows: per agent (root actor), a
 * bounded history of sanitised steps. It is an inspection observer, so it runs inside the agent's
 * own event processing: it never throws back into XState and does O(changed fields) work per event.
 */
import { type AnyStateMachine, type InspectionEvent, StateMachine } from 'xstate';
import { diffContext, applyContextPatch } from './contextPatch.js';
import { AgentStatechartError } from '../machine/index.js';
import type {
  AgentBase,
  AgentHistory,
  AgentSummary,
  RecordedStep,
  StepStatus,
} from './inspectorProtocol.js';
import { RingBuffer } from './ringBuffer.js';
import {
  type JsonValue,
  resolveSanitizeOptions,
  type SanitizeOptions,
  sanitizeWith,
} from './sanitizeForInspection.js';

/**
 * Options of {@link InspectionRecorder}.
 *
 * @example
 * const options: InspectionRecorderOptions = { maxSteps: 10_000, sanitize: { maxStringLength: 1_000 } };
 */
export interface InspectionRecorderOptions {
  /** Steps kept per agent; older ones are folded into the agent's base. Default 5,000. */
  maxSteps?: number;
  /** Agents kept; beyond it the oldest finished one (else the oldest) is dropped. Default 20. */
  maxAgents?: number;
  /** Limits of what is recorded (redaction, string and array cuts). */
  sanitize?: SanitizeOptions;
  /** Receives problems met while recording; default: `console.warn`. Never the agent's concern. */
  onError?: (error: unknown) => void;
}

/**
 * A change to what the recorder holds, for a live view.
 *
 * @example
 * recorder.subscribe((change) => {
 *   if (change.type === 'step') console.log(change.agentId, change.step.value);
 * });
 */
export type RecorderChange =
  | { type: 'agent'; agentId: string; seq: number }
  | { type: 'step'; agentId: string; step: RecordedStep }
  | { type: 'removed'; agentId: string };

/**
 * An inspection observer as `createActor` (and `createAgent`'s `inspect`) takes it.
 *
 * @example
 * const inspect: InspectionObserver = recorder.observe({ name: 'reviewer' });
 */
export type InspectionObserver = (event: InspectionEvent) => void;

interface RawState {
  value: unknown;
  status: unknown;
  context: unknown;
}

/** A microstep's state, and the shown actions it emitted (most emit none). */
interface MicrostepState extends RawState {
  emitted: unknown[];
}

interface PendingEvent {
  event: JsonValue;
  source: string | undefined;
  microsteps: MicrostepState[];
  /**
   * Shown actions emitted since the last microstep: XState reports a microstep's actions before
   * the microstep itself, so they belong to the next one (or, left over, to the last).
   */
  emitting: unknown[];
}

/**
 * The emitted actions a step keeps (see `RecordedStep.emitted`): what the page shows that no
 * other part of a step records.
 */
const SHOWN_EMITTED = new Set(['PromptDropped', 'Compacted', 'CompactionSkipped']);

function isShownEmitted(event: unknown): boolean {
  const type = (event as { type?: unknown } | null)?.type;
  return typeof type === 'string' && SHOWN_EMITTED.has(type);
}

/**
 * The event an executed action emitted (XState's `emit`, which the chart's actions use), or
 * `undefined` for an action that emits nothing.
 *
 * @example
 * if (inspection.type === '@xstate.action') emittedBy(inspection.action); // { type: 'ExecuteTools', … }
 */
export function emittedBy(action: { type: string; params: unknown }): unknown {
  return action.type === 'xstate.emit'
    ? (action.params as { event?: unknown } | undefined)?.event
    : undefined;
}

/**
 * The events the actions of a microstep emitted, as `getMicrosteps` gives them: for a step
 * recorded by hand (a replayed log), so it keeps what a watched agent's step keeps.
 *
 * @example
 * const states = getMicrosteps(agentMachine, snapshot, event).map(([next, actions]) => ({
 *   value: next.value, context: next.context, emitted: emittedEvents(actions),
 * }));
 */
export function emittedEvents(
  actions: ReadonlyArray<{ type: string; params: unknown }>,
): unknown[] {
  return actions.map(emittedBy).filter((event) => event !== undefined);
}

/**
 * One step of an agent recorded by hand (see {@link InspectionRecorder.recordAgent}): the event,
 * and the chart's state after each microstep it caused (the last one is where it settled; an
 * event that changed nothing gives the unchanged state once).
 *
 * @example
 * const step: ExternalStep = {
 *   event: { type: 'UserInput', message: { role: 'user', content: 'hi' } },
 *   time: entry.at,
 *   states: [{ value: { CallingLlm: 'Streaming' }, status: 'active', context }],
 * };
 */
export interface ExternalStep {
  event: unknown;
  /** The id of whoever sent the event (`llm`, a tool call id, …). */
  source?: string;
  /** When it happened (ms since the epoch). Default: now. */
  time?: number;
  states: Array<{
    value: unknown;
    status?: string;
    context: unknown;
    /** What the microstep emitted (see {@link emittedEvents}); the recorder keeps what it shows. */
    emitted?: unknown[];
  }>;
}

/**
 * Where the steps of an agent recorded by hand go.
 *
 * @example
 * const writer = recorder.recordAgent({ id: 'stored:alice-1', name: 'alice-1', machine: agentMachine });
 * writer.step({ event: { type: 'xstate.init' }, states: [initial] });
 */
export interface ExternalAgentWriter {
  /** The agent's id in the recorder (and the page). */
  readonly agentId: string;
  /** Records one step; ignored once the agent was dropped (over `maxAgents`). */
  step(step: ExternalStep): void;
}

/** One agent's record. Mutable on purpose: it is private and updated once per inspection event. */
interface AgentRecord {
  summary: AgentSummary;
  /** The seq its registration took: a page that saw this seq knows the agent. */
  registeredSeq: number;
  base: AgentBase;
  steps: RingBuffer<RecordedStep>;
  /** The raw state of the latest step, to diff the next one against (by reference). */
  last: RawState;
  pending: PendingEvent | null;
}

/**
 * Records agents from their inspection events: what the inspector server serves and streams.
 * Attach it with `createAgent({ inspect: recorder.observe({ name }) })` (or `createActor`'s
 * `inspect`); one recorder can watch any number of agents.
 *
 * @example
 * const recorder = new InspectionRecorder({ maxSteps: 2_000 });
 * const agent = createAgent({ inspect: recorder.observe({ name: 'fixer' }) });
 * agent.send('Fix the failing test');
 * await agent.waitUntilIdle();
 * recorder.agents(); // [{ name: 'fixer', value: 'WaitingForUserInput', … }]
 */
export class InspectionRecorder {
  readonly maxSteps: number;
  readonly maxAgents: number;
  readonly #limits: Required<SanitizeOptions>;
  readonly #onError: (error: unknown) => void;
  readonly #agents = new Map<string, AgentRecord>();
  readonly #listeners = new Set<(change: RecorderChange) => void>();
  /** Charts by machine definition: `provide()` copies a machine but shares its `config`. */
  readonly #chartIds = new WeakMap<object, string>();
  readonly #charts = new Map<string, AnyStateMachine>();
  readonly #nameCounts = new Map<string, number>();
  #seq = 0;
  #unnamed = 0;

  /**
   * @example
   * const recorder = new InspectionRecorder({ onError: (error) => logger.warn(error) });
   */
  constructor(options: InspectionRecorderOptions = {}) {
    this.maxSteps = options.maxSteps ?? 5_000;
    this.maxAgents = options.maxAgents ?? 20;
    for (const [name, value, least] of [
      ['maxSteps', this.maxSteps, 10],
      ['maxAgents', this.maxAgents, 1],
    ] as const) {
      if (!Number.isInteger(value) || value < least) {
        throw new AgentStatechartError(
          'INVALID_OPTION',
          `${name} must be a whole number of at least ${least}; got ${String(value)}`,
        );
      }
    }
    this.#limits = resolveSanitizeOptions(options.sanitize);
    this.#onError =
      options.onError ??
      ((error) => console.warn('agent-statechart inspector: recording failed', error));
  }

  /**
   * An inspection observer that records every root actor it sees, named `name` (numbered when
   * several share it) or `agent N`.
   *
   * @example
   * const agent = createAgent({ inspect: recorder.observe({ name: 'planner' }) });
   */
  observe(options: { name?: string } = {}): InspectionObserver {
    return (event) => {
      try {
        this.#record(event, options.name);
      } catch (error) {
        // An inspector must never break the agent it watches.
        this.reportError(error);
      }
    };
  }

  /**
   * The latest seq given out (to a registration or a step); SSE ids are built on it.
   *
   * @example
   * const resumeAfter = recorder.seq;
   */
  get seq(): number {
    return this.#seq;
  }

  /**
   * The agents held, oldest first.
   *
   * @example
   * recorder.agents().map((agent) => `${agent.name}: ${String(agent.value)}`);
   */
  agents(): AgentSummary[] {
    return [...this.#agents.values()].map((record) => ({ ...record.summary }));
  }

  /**
   * One agent's retained history, or `undefined` if unknown.
   *
   * @example
   * const history = recorder.history(agentId);
   * history?.steps.length; // at most maxSteps
   */
  history(agentId: string): AgentHistory | undefined {
    const record = this.#agents.get(agentId);
    if (record === undefined) return undefined;
    return {
      registeredSeq: record.registeredSeq,
      summary: { ...record.summary },
      base: { ...record.base },
      steps: record.steps.toArray(),
    };
  }

  /**
   * The machine drawn as `chartId`, for rendering its diagram.
   *
   * @example
   * const machine = recorder.chart('agent');
   */
  chart(chartId: string): AnyStateMachine | undefined {
    return this.#charts.get(chartId);
  }

  /**
   * Calls `listener` on every change; returns the function that stops it. A listener that
   * throws is reported through `onError` and does not stop the others.
   *
   * @example
   * const stop = recorder.subscribe((change) => queue.push(change));
   */
  subscribe(listener: (change: RecorderChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #record(event: InspectionEvent, name: string | undefined): void {
    const actor = event.actorRef;
    // Only root actors are agents; their children's work reaches them as events.
    if (event.rootId !== actor.sessionId) return;
    switch (event.type) {
      case '@xstate.actor':
        return this.#register(actor.sessionId, (actor as { logic?: unknown }).logic, name);
      case '@xstate.event': {
        const record = this.#agents.get(actor.sessionId);
        if (record === undefined) return;
        if (record.pending !== null) this.#flush(record, null);
        record.pending = {
          event: sanitizeWith(event.event, this.#limits),
          source: sourceId(event.sourceRef),
          microsteps: [],
          emitting: [],
        };
        return;
      }
      case '@xstate.action': {
        const emitted = emittedBy(event.action);
        if (isShownEmitted(emitted)) {
          this.#agents.get(actor.sessionId)?.pending?.emitting.push(emitted);
        }
        return;
      }
      case '@xstate.microstep': {
        const pending = this.#agents.get(actor.sessionId)?.pending;
        if (pending === undefined || pending === null) return;
        pending.microsteps.push({ ...rawState(event.snapshot), emitted: pending.emitting });
        pending.emitting = [];
        return;
      }
      case '@xstate.snapshot': {
        const record = this.#agents.get(actor.sessionId);
        if (record !== undefined) this.#flush(record, rawState(event.snapshot));
        return;
      }
      default:
        return;
    }
  }

  /**
   * Records an agent whose steps are handed over one by one instead of read off an inspection
   * stream: a stored session replayed from its log, for example. An agent already recorded under
   * `id` is replaced.
   *
   * @example
   * const writer = recorder.recordAgent({ id: 'stored:alice-1', name: 'alice-1', machine: agentMachine });
   * writer.step({ event: { type: 'xstate.init' }, states: [{ value: 'WaitingForUserInput', context }] });
   */
  recordAgent(options: {
    id: string;
    name?: string;
    machine?: AnyStateMachine;
    startedAt?: number;
  }): ExternalAgentWriter {
    if (this.#agents.delete(options.id)) this.#emit({ type: 'removed', agentId: options.id });
    this.#register(options.id, options.machine, options.name, options.startedAt);
    const record = this.#agents.get(options.id);
    return {
      agentId: options.id,
      step: (step) => {
        try {
          if (record === undefined || this.#agents.get(options.id) !== record) return;
          const states = step.states.map((state) => ({
            ...rawState(state),
            emitted: (state.emitted ?? []).filter(isShownEmitted),
          }));
          record.pending = {
            event: sanitizeWith(step.event, this.#limits),
            source: step.source,
            microsteps: states,
            emitting: [],
          };
          // The last microstep is where the event settled; one that changed nothing shows the
          // state it left unchanged, once.
          this.#flush(record, states.length > 0 ? null : rawState(record.last), step.time);
        } catch (error) {
          this.reportError(error);
        }
      },
    };
  }

  #register(
    id: string,
    logic: unknown,
    name: string | undefined,
    startedAt: number = Date.now(),
  ): void {
    if (this.#agents.has(id)) return;
    const record: AgentRecord = {
      registeredSeq: (this.#seq += 1),
      summary: {
        id,
        name: this.#uniqueName(name),
        chartId: logic instanceof StateMachine ? this.#chartIdOf(logic) : null,
        startedAt,
        value: null,
        status: 'active',
      },
      base: { seq: 0, value: null, status: 'active', context: {} },
      steps: new RingBuffer<RecordedStep>(this.maxSteps),
      last: { value: undefined, status: 'active', context: undefined },
      pending: null,
    };
    this.#agents.set(id, record);
    this.#evictAgents();
    this.#emit({ type: 'agent', agentId: id, seq: record.registeredSeq });
  }

  /**
   * Records the steps of one event: each microstep, or the final snapshot alone when the event
   * changed no state. The final snapshot replaces the last microstep, as it carries the actor's
   * status (`done` once `ShuttingDown` is reached); what the replaced microstep emitted stays on
   * it. Shown actions emitted after the last microstep (as the actor stopped) go to the last step.
   */
  #flush(record: AgentRecord, final: RawState | MicrostepState | null, time?: number): void {
    const pending = record.pending;
    record.pending = null;
    const states = pending?.microsteps ?? [];
    if (final !== null) {
      const replaced = states.pop();
      const emitted = [...(replaced?.emitted ?? []), ...('emitted' in final ? final.emitted : [])];
      states.push({ ...final, emitted });
    }
    const last = states.at(-1);
    if (last !== undefined && pending !== null) last.emitted.push(...pending.emitting);
    states.forEach((state, index) => {
      const step: RecordedStep = {
        seq: (this.#seq += 1),
        time: time ?? Date.now(),
        value: sanitizeWith(state.value, this.#limits),
        status: toStatus(state.status),
      };
      if (index === 0 && pending !== null) {
        step.event = pending.event;
        if (pending.source !== undefined) step.source = pending.source;
      } else {
        step.continued = true;
      }
      if (state.emitted.length > 0) {
        step.emitted = state.emitted.map((item) => sanitizeWith(item, this.#limits));
      }
      const patch = diffContext(record.last.context, state.context, this.#limits);
      if (patch !== undefined) step.patch = patch;
      record.last = state;
      this.#append(record, step);
    });
  }

  #append(record: AgentRecord, step: RecordedStep): void {
    record.summary.value = step.value;
    record.summary.status = step.status;
    const evicted = record.steps.push(step);
    if (evicted !== undefined) {
      record.base = {
        seq: evicted.seq,
        value: evicted.value,
        status: evicted.status,
        context: applyContextPatch(record.base.context, evicted.patch),
      };
    }
    this.#emit({ type: 'step', agentId: record.summary.id, step });
  }

  #evictAgents(): void {
    while (this.#agents.size > this.maxAgents) {
      const records = [...this.#agents.values()];
      const victim = records.find((record) => record.summary.status !== 'active') ?? records[0];
      if (victim === undefined) return;
      this.#agents.delete(victim.summary.id);
      this.#emit({ type: 'removed', agentId: victim.summary.id });
    }
  }

  #chartIdOf(machine: AnyStateMachine): string {
    const key: object = machine.config;
    const known = this.#chartIds.get(key);
    if (known !== undefined) return known;
    const base = /^[\w-]+$/.test(machine.id) ? machine.id : 'machine';
    let chartId = base;
    for (let n = 2; this.#charts.has(chartId); n += 1) chartId = `${base}-${n}`;
    this.#chartIds.set(key, chartId);
    this.#charts.set(chartId, machine);
    return chartId;
  }

  #uniqueName(name: string | undefined): string {
    if (name === undefined) return `agent ${(this.#unnamed += 1)}`;
    const count = (this.#nameCounts.get(name) ?? 0) + 1;
    this.#nameCounts.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  }

  #emit(change: RecorderChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.reportError(error);
      }
    }
  }

  /**
   * Reports a problem through `onError`; never throws (a failing handler goes to the console).
   *
   * @example
   * server.on('error', (error) => recorder.reportError(error));
   */
  reportError(error: unknown): void {
    try {
      this.#onError(error);
    } catch (secondary) {
      // The error handler itself failed: the console is all that is left.
      console.error('agent-statechart inspector: onError threw', secondary, error);
    }
  }
}

function rawState(snapshot: unknown): RawState {
  const { value, status, context } = snapshot as Partial<RawState>;
  return { value, status, context };
}

function sourceId(actor: unknown): string | undefined {
  const id = (actor as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

function toStatus(status: unknown): StepStatus {
  return status === 'done' || status === 'error' || status === 'stopped' ? status : 'active';
}
