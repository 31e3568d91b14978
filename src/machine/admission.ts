/**
 * Whether the chart takes an event where it stands, and if not, the sentence that says why: one
 * decision for pure mode (`AgentCore`), the actor handle (`Agent.dispatch`) and a restored
 * session's `Resume`.
 */
import type { SnapshotFrom } from 'xstate';
import type { AgentMachine } from './agentMachine.js';
import { answerRefusal } from './answerRefusal.js';
import type { AgentEvent } from './events.js';
import { describeStateValue } from './stateNames.js';

/**
 * Why an event changed nothing.
 *
 * - `MALFORMED_EVENT`: the event does not have the shape of an `AgentEvent`;
 * - `EVENT_NOT_ACCEPTED`: a valid event the current state does not take (a late `ToolCompleted`
 *   for a cancelled call, `LlmTextDelta` while idle, …);
 * - `AGENT_STOPPED`: the agent reached `ShuttingDown`, which is final, or its actor stopped;
 * - `TRANSITION_FAILED`: the chart itself threw; the agent keeps its previous state;
 * - `ACTOR_FAILED`: one of the chart's actors threw instead of answering with the chart's event
 *   (a bug in that actor): the chart was given the event that stands for the failure instead;
 * - `TRANSCRIPT_REPAIRED`: the transcript given to start from had `tool_use` blocks with no
 *   `tool_result`; each was answered as interrupted before the first request (`event` is
 *   `undefined`).
 */
export type AgentDiagnosticCode =
  | 'MALFORMED_EVENT'
  | 'EVENT_NOT_ACCEPTED'
  | 'AGENT_STOPPED'
  | 'TRANSITION_FAILED'
  | 'ACTOR_FAILED'
  | 'TRANSCRIPT_REPAIRED';

/**
 * A refusal of an event the chart will not take where it stands.
 *
 * @example
 * const refusal: Refusal = { code: 'EVENT_NOT_ACCEPTED', message: 'Interrupt is not accepted in state WaitingForUserInput.Ready; nothing changed' };
 */
export interface Refusal {
  code: Extract<AgentDiagnosticCode, 'EVENT_NOT_ACCEPTED' | 'AGENT_STOPPED'>;
  message: string;
}

/**
 * The chart takes no event any more: it reached `ShuttingDown`, which is final, or its actor
 * stopped.
 *
 * @example
 * if (isStopped(actor.getSnapshot())) return;
 */
export function isStopped(snapshot: SnapshotFrom<AgentMachine>): boolean {
  // A snapshot restored in ShuttingDown may not carry status 'done'; the state name decides.
  return snapshot.status !== 'active' || snapshot.value === 'ShuttingDown';
}

/**
 * `null` when the chart in `snapshot` takes `event` (some transition of its state handles it and
 * its guards allow it), otherwise why not.
 *
 * @example
 * const refusal = admit(actor.getSnapshot(), { type: 'Interrupt' });
 * if (refusal === null) actor.send({ type: 'Interrupt' });
 */
export function admit(snapshot: SnapshotFrom<AgentMachine>, event: AgentEvent): Refusal | null {
  if (isStopped(snapshot)) {
    return {
      code: 'AGENT_STOPPED',
      message: `${event.type} ignored: the agent is in ShuttingDown, which is final`,
    };
  }
  if (snapshot.can(event)) return null;
  // An answer the chart refuses says why: the call is not asking, or the answers do not fit.
  const message =
    event.type === 'UserAnswer'
      ? answerRefusal(snapshot.context.toolRuns, event)
      : `${event.type} is not accepted in state ${describeStateValue(snapshot.value)}; nothing changed`;
  return { code: 'EVENT_NOT_ACCEPTED', message };
}
