import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { AgentAction, AgentEvent } from '../machine/index.js';
import type { AgentTracer } from './agentTracer.js';

/**
 * An inspection observer that hands `tracer` the events `root` takes, and a listener on `root`
 * for the actions it emits: the agent's chart traced in actor mode. XState shows an event to the
 * inspector before the chart acts on it, so the tracer sees each event before its actions.
 *
 * @example
 * const actor = createActor(machine, { inspect: (event) => trace(event) });
 * const trace = traceActor(tracer, actor);
 */
export function traceActor(
  tracer: AgentTracer,
  root: AnyActorRef,
): (inspection: InspectionEvent) => void {
  root.on('*', (action: AgentAction) => tracer.action(action));
  return (inspection) => {
    if (inspection.actorRef === root && inspection.type === '@xstate.event') {
      tracer.event(inspection.event as AgentEvent);
    }
  };
}
