/**
 * A stored session's log replayed through the chart from its first entry, one step per event with
 * every microstep it caused (and what each emitted: a prompt it dropped shows in the page as it
 * does live) — what the inspector page steps through for a session that is not running here. The
 * chart's own pure transitions (`getMicrosteps`) do the work: nothing runs.
 */
import { getInitialSnapshot, getMicrosteps, type SnapshotFrom } from 'xstate';
import {
  type AgentConfig,
  type AgentEvent,
  type AgentMachine,
  agentMachine,
  AgentStatechartError,
  EVENT_TRAITS,
  validateEvent,
} from '../machine/index.js';
import type { StoredEntry } from '../persistence/index.js';
import { emittedEvents, type ExternalStep } from './inspectionRecorder.js';

type ChartSnapshot = SnapshotFrom<AgentMachine>;

/**
 * Replays a session's log entry by entry. Construct it with the configuration the session runs
 * with (tools, permissions, limits): the log holds only what came from outside the chart.
 *
 * @example
 * const replay = new SessionLogReplay({ tools, permissions: { mode: 'default' } });
 * recorder.step(replay.initialStep(header.createdAt));
 * for (const entry of await store.entries('alice-1')) {
 *   const step = replay.next(entry);
 *   if (step) writer.step(step);
 * }
 */
export class SessionLogReplay {
  #snapshot: ChartSnapshot;
  #seq = 0;

  constructor(config: AgentConfig = {}) {
    this.#snapshot = getInitialSnapshot(agentMachine, { config });
  }

  /** The chart as the entries replayed so far left it. */
  get snapshot(): ChartSnapshot {
    return this.#snapshot;
  }

  /** The seq of the last entry replayed. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * The step before the first entry: the chart as the session was created.
   *
   * @example
   * writer.step(replay.initialStep(header.createdAt));
   */
  initialStep(time: number): ExternalStep {
    return { event: { type: 'xstate.init' }, time, states: [stateOf(this.#snapshot)] };
  }

  /**
   * Replays one entry: the step it makes, or `undefined` for an entry that is not an event the
   * chart took (a side effect's start). Throws `SESSION_CORRUPT` for an entry out of order or
   * one that is not an event.
   *
   * @example
   * const step = replay.next({ seq: 1, at: Date.now(), kind: 'event', data: { type: 'Interrupt' } });
   */
  next(entry: StoredEntry): ExternalStep | undefined {
    if (entry.seq !== this.#seq + 1) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `log entry ${entry.seq} came after entry ${this.#seq}; the log has a gap`,
      );
    }
    this.#seq = entry.seq;
    if (entry.kind !== 'event') return undefined;
    const problem = validateEvent(entry.data);
    if (problem !== null) {
      throw new AgentStatechartError('SESSION_CORRUPT', `log entry ${entry.seq}: ${problem}`);
    }
    const event = entry.data;
    const microsteps = getMicrosteps(agentMachine, this.#snapshot, event);
    // An event the chart did not take (a late result of a cancelled call) changes nothing.
    const states =
      microsteps.length > 0
        ? microsteps.map(([next, actions]) => ({
            ...stateOf(next),
            emitted: emittedEvents(actions),
          }))
        : [stateOf(this.#snapshot)];
    this.#snapshot = microsteps.at(-1)?.[0] ?? this.#snapshot;
    const source = sourceOf(event);
    return {
      event,
      time: entry.at,
      ...(source === undefined ? {} : { source }),
      states,
    };
  }
}

function stateOf(snapshot: ChartSnapshot): ExternalStep['states'][number] {
  return { value: snapshot.value, status: snapshot.status, context: snapshot.context };
}

/** The actor that sent `event` (a tool call by its id), or `undefined` for the agent's user. */
function sourceOf(event: AgentEvent): string | undefined {
  const { origin } = EVENT_TRAITS[event.type];
  if (origin === 'caller' || origin === 'store') return undefined;
  return event.type === 'ToolCompleted' || event.type === 'ToolProgress' ? event.callId : origin;
}
