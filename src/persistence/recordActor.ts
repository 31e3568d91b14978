/**
 * Actor mode, durable: records the events an agent's actor takes, as XState's inspection stream
 * shows them. Every event sent to the chart is recorded as it arrives, before the chart acts on
 * it (a synchronous store has it on disk by then; an asynchronous one has it queued, and the
 * actors wait for the queue before any side effect starts); a checkpoint follows whenever the
 * chart comes to rest.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import {
  type AgentContext,
  type AgentEvent,
  type AgentStateValue,
  checkEvent,
  EVENT_TRAITS,
  topStateOf,
} from '../machine/index.js';
import type { SessionRecorder } from './sessionRecorder.js';

/**
 * An inspection observer that records the events `root` takes through `recorder`. A write that
 * fails is not reported here: the log refuses everything after it and says so through
 * `log.failed`.
 *
 * @example
 * const actor = createActor(machine, { inspect: (event) => record(event) });
 * const record = recordActor(recorder, actor);
 */
export function recordActor(
  recorder: SessionRecorder,
  root: AnyActorRef,
): (event: InspectionEvent) => void {
  const settle = (write: Promise<void> | undefined) => void write?.catch(() => undefined);
  return (inspection) => {
    if (inspection.actorRef !== root) return;
    if (inspection.type === '@xstate.event') {
      const traits = EVENT_TRAITS[inspection.event.type as AgentEvent['type']];
      // XState's own events (an actor finishing) are not the chart's, and what is only shown
      // (tool progress) is never recorded: neither is copied.
      if (traits === undefined || traits.displayOnly) return;
      // A stream's pieces are most of what a turn's chart takes: held as they came, the few kept
      // are checked when they are written.
      if (traits.streamed) return settle(recorder.event(inspection.event as AgentEvent));
      const checked = checkEvent(inspection.event);
      if (checked.ok) settle(recorder.event(checked.event));
    } else if (inspection.type === '@xstate.snapshot') {
      const chart = inspection.snapshot as unknown as {
        value: AgentStateValue;
        context: AgentContext;
      };
      settle(recorder.rested({ state: topStateOf(chart.value), context: chart.context }));
    }
  };
}
