/**
 * The notifications read off the chart's microsteps: state changes (the transient
 * `ProcessingLlmResponse` included) and tool ends, in the order they happen, whichever actor ran
 * the call. Microsteps come from XState's inspection stream, which is switched on only when a
 * listener needs them.
 */
import type { InspectionEvent } from 'xstate';
import { type AgentContext, type AgentStateValue, topStateOf } from '../machine/index.js';
import { type Announce, type NotificationHub, toolEndsBetween } from './agentNotifications.js';

/** What the notifications read of a snapshot. */
interface SnapshotView {
  value: AgentStateValue;
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
  let state = topStateOf(from.value);
  let runs = from.context.toolRuns;
  const announce: Announce = (name, payload) => hub.emit(name, payload);
  return (event) => {
    if (event.type !== '@xstate.microstep' || event.actorRef !== root) return;
    const snapshot = event.snapshot as unknown as SnapshotView;
    toolEndsBetween(runs, snapshot.context.toolRuns, announce);
    runs = snapshot.context.toolRuns;
    const next = topStateOf(snapshot.value);
    if (next !== state) {
      const previous = state;
      state = next;
      hub.emit('state', { state, previous });
    }
  };
}
