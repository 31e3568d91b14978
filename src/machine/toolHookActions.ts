/**
 * The chart's actions about the tool hooks: what the `preToolUse` hook's decision does to a call
 * before the permission check, and what the `postToolUse` hook adds to a call's result. Hooks
 * that guard calls fail closed (a failed `preToolUse` hook denies the call); hooks that comment
 * on results fail open (a failed `postToolUse` hook leaves the result as it was); either way the
 * user is told.
 */
import { assertEvent } from 'xstate';
import { hookActorId } from './actorNames.js';
import type { ChartAction } from './chartStep.js';
import type { ToolRun } from './context.js';
import { errorOutcome, settleToolRuns, startCalls, updateRun } from './toolRuns.js';

/**
 * The `preToolUse` hook decided: a `deny` (or a failure) refuses the call with the reason; anything
 * else records the verdict, the input it gave and the note it added, and the call goes through
 * the permission check with that verdict.
 */
export const applyPreToolUse: ChartAction = (context, event) => {
  assertEvent(event, 'PreToolUseDecision');
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  if (run === undefined) return {};
  const stop = [hookActorId(event.callId)];
  if (event.error !== undefined) {
    const refusal = `permission denied: the preToolUse hook failed, so the call did not run (${event.error})`;
    return {
      stop,
      context: {
        toolRuns: updateRun(context.toolRuns, event.callId, {
          status: 'done',
          outcome: errorOutcome(refusal),
        }),
      },
      emit: [{ type: 'DisplayError', message: event.error, source: 'hook' }],
    };
  }
  if (event.decision === 'deny') {
    const reason = event.reason === undefined ? '' : `: ${event.reason}`;
    const outcome = errorOutcome(`permission denied by the preToolUse hook${reason}`);
    const runs = updateRun(context.toolRuns, event.callId, { status: 'done', outcome });
    return { stop, context: { toolRuns: runs } };
  }
  const notes = [...(run.notes ?? [])];
  if (event.input !== undefined) {
    notes.push(
      `A preToolUse hook changed this call's input before it ran; it ran with ${JSON.stringify(event.input)}.`,
    );
  }
  if (event.context !== undefined) notes.push(`[preToolUse hook] ${event.context}`);
  const checked: Partial<ToolRun> = {
    status: 'pending',
    verdict: event.decision ?? 'pass',
    call: event.input === undefined ? run.call : { ...run.call, input: event.input },
    ...(notes.length > 0 ? { notes } : {}),
  };
  const plan = settleToolRuns({
    ...context,
    toolRuns: updateRun(context.toolRuns, event.callId, checked),
  });
  const { runs, start, subagents } = startCalls(context, plan.runs, plan.start);
  return {
    stop,
    context: { toolRuns: runs },
    start,
    subagents,
    emit: plan.ask.map((call) => ({ type: 'RequestApproval' as const, call })),
  };
};

/**
 * The `postToolUse` hook is done with a call that ran: its note goes after the result, and for a
 * call that failed, its message replaces the tool's error. A failed hook changes nothing.
 */
export const applyPostToolUse: ChartAction = (context, event) => {
  assertEvent(event, 'PostToolUseResult');
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  if (run?.outcome === undefined) return {};
  const stop = [hookActorId(event.callId)];
  if (event.error !== undefined) {
    return {
      stop,
      context: { toolRuns: updateRun(context.toolRuns, event.callId, { status: 'done' }) },
      emit: [{ type: 'DisplayError', message: event.error, source: 'hook' }],
    };
  }
  const outcome =
    event.message !== undefined && run.outcome.status === 'error'
      ? errorOutcome(event.message)
      : run.outcome;
  const notes =
    event.context === undefined
      ? run.notes
      : [...(run.notes ?? []), `[postToolUse hook] ${event.context}`];
  const done: Partial<ToolRun> = { status: 'done', outcome, ...(notes ? { notes } : {}) };
  return { stop, context: { toolRuns: updateRun(context.toolRuns, event.callId, done) } };
};
