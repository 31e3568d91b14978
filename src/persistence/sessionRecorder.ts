/**
 * The one recorder of a durable session: what the log keeps of the events the chart takes, and
 * when a checkpoint follows. The agent's actor (`recordActor`), pure mode (`SessionCore`) and the
 * workers (through `SessionCore`) all record through it, so a log says the same whoever drove the
 * session, and a replay feeds the same events to the same transition.
 *
 * The log keeps every event the chart takes, as it took it, except:
 * - a model call's stream (its text and tool-call fragments) is merged as it comes, and kept only
 *   when something else happens before the call's own next event (an interrupt, input queued
 *   meanwhile): the call's response or failure makes it irrelevant to everything that follows;
 * - tool progress, which nothing a stored snapshot keeps depends on.
 * Both follow from the event traits the chart declares (`EVENT_TRAITS`); nothing here knows what
 * the chart does with an event.
 */
import {
  type AgentContext,
  type AgentEvent,
  type AgentStateName,
  checkEvent,
  type EffectStart,
  EVENT_TRAITS,
  StreamBuffer,
  type StreamedEvent,
} from '../machine/index.js';
import type { NewEntry } from './sessionRecords.js';
import { shouldCheckpoint } from './sessionRecords.js';
import type { SessionLog } from './sessionLog.js';

/**
 * The chart as it stands after an event: its top-level state and context.
 *
 * @example
 * const view: ChartView = { state: core.state, context: core.context };
 */
export interface ChartView {
  state: AgentStateName;
  context: AgentContext;
}

/**
 * Records one session's events into its log.
 *
 * @example
 * const recorder = new SessionRecorder(log);
 * await recorder.event(event, { state: core.state, context: core.context });
 */
export class SessionRecorder {
  readonly #log: SessionLog;
  /** The model call's stream since its last event that the log kept. */
  readonly #stream = new StreamBuffer();

  constructor(log: SessionLog) {
    this.#log = log;
  }

  /** The log recorded into. */
  get log(): SessionLog {
    return this.#log;
  }

  /**
   * The chart takes `event` (a checked, plain-JSON event): records what the log keeps of it and,
   * when `after` (the chart having taken it) is at rest or due, a checkpoint in the same write.
   * Returns the write, or `undefined` when nothing was written (a stream event, held for now).
   *
   * @example
   * const written = recorder.event(taken, { state: core.state, context: core.context });
   * if (written) await written;
   */
  event(event: AgentEvent, after?: ChartView): Promise<void> | undefined {
    const traits = EVENT_TRAITS[event.type];
    if (traits.streamed) {
      this.#stream.add(event as StreamedEvent);
      return undefined;
    }
    const entries: NewEntry[] = traits.displayOnly ? [] : [...this.#heldStream(traits.origin)];
    if (!traits.displayOnly) entries.push({ kind: 'event', data: event });
    const tail = this.#log.tailLength + entries.length;
    const checkpoint =
      after !== undefined && tail > 0 && this.#due(after, tail) ? after : undefined;
    if (entries.length === 0 && checkpoint === undefined) return undefined;
    return this.#log.record(entries, checkpoint);
  }

  /**
   * The chart came to rest after the events recorded so far (actor mode learns this after the
   * event, not with it): a checkpoint, when one is due.
   *
   * @example
   * recorder.rested({ state: 'WaitingForUserInput', context });
   */
  rested(chart: ChartView): Promise<void> | undefined {
    const tail = this.#log.tailLength;
    if (tail === 0 || !this.#due(chart, tail)) return undefined;
    return this.#log.record([], chart);
  }

  /**
   * Records that a side effect is about to start; start it once this resolves.
   *
   * @example
   * await recorder.started({ effect: 'llm' });
   */
  started(start: EffectStart): Promise<void> {
    return this.#log.started(start);
  }

  #due(chart: ChartView, tail: number): boolean {
    const compacted = this.#log.compactedSinceCheckpoint(chart.context);
    return shouldCheckpoint(chart.state, chart.context, tail, compacted);
  }

  /**
   * The held stream, as the entries that go before an event of `origin`: none when the event is
   * the call's own (its response or failure leaves the stream nothing to say), the merged stream
   * otherwise. The stream is let go either way.
   */
  #heldStream(origin: string): NewEntry[] {
    if (this.#stream.empty) return [];
    const held = origin === 'llm' ? [] : this.#stream.events();
    this.#stream.clear();
    const entries: NewEntry[] = [];
    for (const event of held) {
      // A replacement `llm` actor may have streamed a malformed piece; the log keeps only events
      // a replay can take.
      const checked = checkEvent(event);
      if (checked.ok) entries.push({ kind: 'event', data: checked.event });
    }
    return entries;
  }
}
