/**
 * The notifications read off the chart's microsteps: state changes (the transient
 * `ProcessingLlmResponse` included) and tool ends, in the order they happen, whichever actor ran
 * the call. Microsteps come from XState's inspection stream, which is switched on only when a
 * listener needs them.
 */
import type { InspectionEvent } from 'xstate';
import type { AgentContext } from '../machine/context.js';
import type { AgentStateName } from '../machine/types.js';
import type { NotificationHub } from './agentNotifications.js';

/** What the notifications read of a snapshot. */
interface SnapshotView {
  value: AgentStateName;
  context: AgentContext;
}

/**
 * An inspection observer that reports the `state` and `toolEnd` notifications of the actor
 * `root`, starting from its snapshot `from`.
 *
 * @example
 * actor.system.inspect(microstepNotifier(hub, actor, actor.getSnapshot()));
 */
export function microstepNotifier(
  hub: NotificationHub,
  root: unknown,
  from: SnapshotView,
): (event: InspectionEvent) => void {
  let state = from.value;
  let runs = from.context.toolRuns;
  return (event) => {
    if (event.type !== '@xstate.microstep' || event.actorRef !== root) return;
    const snapshot = event.snapshot as unknown as SnapshotView;
    const next = snapshot.context.toolRuns;
    if (next !== runs) {
      const before = new Map(runs.map((run) => [run.call.id, run.status]));
      runs = next;
      for (const run of next) {
        if (run.status === 'done' && before.get(run.call.id) !== 'done' && run.outcome) {
          hub.emit('toolEnd', { call: run.call, outcome: run.outcome });
        }
      }
    }
    if (snapshot.value !== state) {
      const previous = state;
      state = snapshot.value;
      hub.emit('state', { state, previous });
    }
  };
}
