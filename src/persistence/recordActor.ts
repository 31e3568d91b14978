/**
 * Actor mode, durable: records what an agent's actor takes from outside, as XState's inspection
 * stream shows it. Every event the chart receives is recorded as it arrives, before the chart
 * acts on it (a synchronous store has it on disk by then; an asynchronous one has it queued, and
 * the actors wait for the queue before any side effect starts); a checkpoint follows whenever the
 * chart comes to rest.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { errorMessage } from '../machine/agentStatechartError.js';
import type { AgentContext } from '../machine/context.js';
import type { AgentEvent, AgentStateName } from '../machine/types.js';
import { isAgentEvent } from '../machine/validateEvent.js';
import { entriesForEvent, isEphemeral, shouldCheckpoint } from './sessionRecords.js';
import type { SessionLog } from './sessionLog.js';

interface ChartView {
  value: AgentStateName;
  context: AgentContext;
}

const ACTOR_ERROR = 'xstate.error.actor.';

/**
 * An inspection observer that records the events `root` takes into `log`. A write that fails is
 * not reported here: the log refuses everything after it and says so through `log.failed`.
 *
 * @example
 * const actor = createActor(machine, { inspect: (event) => record(event) });
 * const record = recordActor(log, actor);
 */
export function recordActor(log: SessionLog, root: AnyActorRef): (event: InspectionEvent) => void {
  const settle = (write: Promise<void>) => write.catch(() => undefined);
  return (inspection) => {
    if (inspection.actorRef !== root) return;
    if (inspection.type === '@xstate.event') {
      // Streamed deltas and progress are never stored: leave them before any checking or
      // copying, since they are most of what a turn's chart takes.
      if (isEphemeral(inspection.event as AgentEvent)) return;
      const chart = root.getSnapshot() as ChartView;
      const event = chartEventOf(inspection.event, chart);
      if (event === undefined) return;
      void settle(log.record(entriesForEvent(event, chart.value, chart.context)));
    } else if (inspection.type === '@xstate.snapshot') {
      const chart = inspection.snapshot as unknown as ChartView;
      if (log.tailLength > 0 && shouldCheckpoint(chart.value, chart.context, log.tailLength)) {
        void settle(log.record([], { state: chart.value, context: chart.context }));
      }
    }
  };
}

/**
 * The chart event an incoming event stands for in the log. An actor that failed is recorded as
 * the event the chart makes of its failure, so a replay in pure mode reaches the same context;
 * XState's own events that the chart ignores are not recorded.
 */
function chartEventOf(
  event: { type: string; error?: unknown },
  chart: ChartView,
): AgentEvent | undefined {
  if (!event.type.startsWith(ACTOR_ERROR)) return isAgentEvent(event) ? event : undefined;
  const actorId = event.type.slice(ACTOR_ERROR.length);
  const reason = errorMessage(event.error);
  switch (actorId) {
    case 'llm':
      return {
        type: 'LlmError',
        error: { kind: 'unknown', message: `the llm actor failed: ${reason}` },
      };
    case 'postToolsHook':
      return { type: 'PostToolsHookCompleted', actionTaken: false };
    case 'retryTimer':
      return { type: 'RetryTimeoutFired' };
    default: {
      if (chart.value !== 'ExecutingTools') return undefined;
      const run = chart.context.toolRuns.find((candidate) => candidate.call.id === actorId);
      if (run?.status !== 'running') return undefined;
      return {
        type: 'ToolCompleted',
        callId: actorId,
        outcome: {
          status: 'error',
          error: { message: `tool '${run.call.name}' failed: ${reason}` },
        },
      };
    }
  }
}
