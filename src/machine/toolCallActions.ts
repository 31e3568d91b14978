/**
 * The chart's actions about the tool calls of one response: the permission pass, approvals and
 * mode changes, outcomes, the results message, and what an interrupt, a shutdown or a restore
 * does to calls still open.
 */
import { assertEvent } from 'xstate';
import { appended, type ChartAction, type ChartStep } from './chartStep.js';
import type { AgentContext, ToolRun } from './context.js';
import {
  errorOutcome,
  expireCancelledRuns,
  interruptRuns,
  openActorIds,
  openQuestionsOf,
  openRunIds,
  resumeRuns,
  runIdsWithStatus,
  settleCancelledRun,
  settleToolRuns,
  shutDownRuns,
  startCalls,
  updateRun,
} from './toolRuns.js';
import { toolResultsMessage } from './transcript.js';
import type { ToolCompletedEvent } from './events.js';
import { addUsage } from './usage.js';
import { answerText, questionsOf } from './askUser.js';

/**
 * On entering `ExecutingTools`: allowed calls start, refused ones are answered, the rest ask;
 * `ask_user` calls put their questions to the user.
 */
export const startToolCalls: ChartAction = (context) => {
  const plan = settleToolRuns(context);
  const { runs, start, subagents } = startCalls(context, plan.runs, plan.start);
  return {
    context: { toolRuns: runs },
    start,
    subagents,
    hooks: plan.hooks,
    emit: [
      ...plan.ask.map((call) => ({ type: 'RequestApproval' as const, call })),
      ...plan.questions.map((asked) => ({ type: 'AskUser' as const, ...asked })),
    ],
  };
};

/** The user answered an `ask_user` call: the answers, under their questions, are its result. */
export const applyAnswer: ChartAction = (context, event) => {
  assertEvent(event, 'UserAnswer');
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  const read = run === undefined ? undefined : questionsOf(run.call.input);
  if (read === undefined || 'problem' in read) return {};
  const outcome = { status: 'success' as const, output: answerText(read.questions, event.answers) };
  return {
    context: { toolRuns: updateRun(context.toolRuns, event.callId, { status: 'done', outcome }) },
  };
};

/** A person's answer: the call runs or is refused; a remembered answer may settle other calls. */
export const applyApproval: ChartAction = (context, event) => {
  assertEvent(event, 'ToolApproval');
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  if (run === undefined) return {};
  const remembered = event.remember
    ? { ...context.rememberedDecisions, [run.call.name]: event.decision }
    : context.rememberedDecisions;
  // An edited input replaces the model's for the run; the transcript keeps what the model asked.
  const call = event.input === undefined ? run.call : { ...run.call, input: event.input };
  const refusal = `permission denied: the user refused this ${run.call.name} call`;
  const runs =
    event.decision === 'allow'
      ? updateRun(context.toolRuns, event.callId, {
          status: 'running',
          call,
          ...(event.input === undefined ? {} : { edited: true as const }),
        })
      : updateRun(context.toolRuns, event.callId, {
          status: 'done',
          outcome: errorOutcome(
            event.reason === undefined ? refusal : `${refusal}: ${event.reason}`,
          ),
        });
  const approved = event.decision === 'allow' ? [call] : [];
  const plan = event.remember
    ? settleToolRuns({ ...context, toolRuns: runs, rememberedDecisions: remembered })
    : { runs, start: [] };
  const started = startCalls(context, plan.runs, [...approved, ...plan.start]);
  return {
    context: {
      toolRuns: started.runs,
      ...(event.remember ? { rememberedDecisions: remembered } : {}),
    },
    start: started.start,
    subagents: started.subagents,
  };
};

/** After a mode change, calls waiting for approval are checked again. */
export const recheckApprovals: ChartAction = (context) => {
  const plan = settleToolRuns(context);
  const { runs, start, subagents } = startCalls(context, plan.runs, plan.start);
  return { context: { toolRuns: runs }, start, subagents };
};

/** A call ended: its outcome is final, or, with the `postToolUse` hook on, the hook sees it first. */
export const recordToolOutcome: ChartAction = (context, event) => {
  assertEvent(event, 'ToolCompleted');
  const reviewed = context.config.hooks.postToolUse;
  const runs = updateRun(context.toolRuns, event.callId, {
    status: reviewed ? 'postHook' : 'done',
    outcome: event.outcome,
  });
  const run = runs.find((candidate) => candidate.call.id === event.callId);
  return {
    stop: [event.callId],
    context: { toolRuns: runs, ...rolledUp(context, event.usage) },
    hooks:
      reviewed && run !== undefined
        ? [{ hook: 'postToolUse', call: run.call, outcome: event.outcome }]
        : [],
  };
};

/** What a subagent used, added to this agent's session and turn (not to its own calls). */
function rolledUp(
  context: AgentContext,
  used: ToolCompletedEvent['usage'],
): Pick<AgentContext, 'usage' | 'turn'> | undefined {
  if (used === undefined) return undefined;
  return {
    usage: addUsage(context.usage, used, used.costUsd),
    turn: { ...context.turn, usage: addUsage(context.turn.usage, used, used.costUsd) },
  };
}

/** Every call has its outcome: the results go into the transcript, in the order of the calls. */
export const answerToolCalls: ChartAction = (context) => ({
  context: { messages: appended(context, toolResultsMessage(context.toolRuns)) },
});

/**
 * An interrupt with nothing worth waiting for: every open call is answered at once with what is
 * known, and its work is cancelled.
 */
export const interruptToolCalls: ChartAction = (context) => {
  const runs = interruptRuns(context.toolRuns, context.config.tools, 0);
  return closeRuns(context, runs);
};

/**
 * An interrupt while calls run: they are aborted but kept, to learn (within the grace period) how
 * they really ended; calls that never started are answered at once.
 */
export const abortToolCalls: ChartAction = (context) => {
  const { tools, toolGraceMs } = context.config;
  const open = openRunIds(context.toolRuns);
  const runs = interruptRuns(context.toolRuns, tools, toolGraceMs);
  const cancelling = runIdsWithStatus(runs, 'cancelling');
  return {
    stop: openActorIds(context.toolRuns).filter((id) => !cancelling.includes(id)),
    abort: cancelling,
    context: { toolRuns: runs },
    emit: [{ type: 'Cancel', toolCallIds: open, graceMs: toolGraceMs }],
  };
};

/** The agent shuts down: every open call is answered, saying whether it ever ran. */
export const shutDownToolCalls: ChartAction = (context) => {
  const runs = shutDownRuns(context.toolRuns, context.config.tools);
  return closeRuns(context, runs);
};

/** A call an interrupt aborted reports how it really ended. */
export const settleCancelledCall: ChartAction = (context, event) => {
  assertEvent(event, 'ToolCompleted');
  return {
    stop: [event.callId],
    context: {
      toolRuns: settleCancelledRun(context.toolRuns, event.callId, event.outcome),
      ...rolledUp(context, event.usage),
    },
  };
};

/**
 * No more waiting for aborted calls (the grace period ran out, or the process stopped while
 * waiting): their actors are stopped, and they are answered with what is known.
 */
export const expireCancelledCalls: ChartAction = (context) => {
  const silent = runIdsWithStatus(context.toolRuns, 'cancelling');
  return {
    stop: silent,
    context: { toolRuns: expireCancelledRuns(context.toolRuns, context.config.tools) },
    emit: [{ type: 'Cancel', toolCallIds: silent }],
  };
};

/**
 * A restored agent's calls that were running: each runs again or is answered (the rule is
 * `resumeRuns`); a hook that had not answered runs again; approvals and questions are asked
 * again. An actor still working on one (a resume sent to a live agent) is stopped first.
 */
export const resumeToolCalls: ChartAction = (context, event) => {
  assertEvent(event, 'Resume');
  const resumed = resumeRuns(context.toolRuns, context.config.tools, event.startedToolCallIds);
  const { runs, start, subagents } = startCalls(context, resumed.runs, resumed.start);
  return {
    stop: openActorIds(context.toolRuns),
    context: { toolRuns: runs },
    start,
    subagents,
    hooks: resumed.hooks,
    emit: [
      ...runs
        .filter((run) => run.status === 'awaitingApproval')
        .map((run) => ({ type: 'RequestApproval' as const, call: run.call })),
      ...openQuestionsOf(runs).map((asked) => ({ type: 'AskUser' as const, ...asked })),
    ],
  };
};

/** Open calls end with `runs`' outcomes: results in, actors stopped, work cancelled. */
function closeRuns(context: AgentContext, runs: ToolRun[]): ChartStep {
  const open = openRunIds(context.toolRuns);
  return {
    stop: openActorIds(context.toolRuns),
    context: { toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) },
    emit: open.length > 0 ? [{ type: 'Cancel', toolCallIds: open }] : [],
  };
}
