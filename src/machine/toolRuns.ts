/**
 * How the tool calls of one response move from `pending` to `done`: the permission check on
 * entering `ExecutingTools`, approvals, mode changes, outcomes and interrupts. Plain functions
 * over the context; the chart wires their results into assign, spawn and emit actions.
 */
import type { AgentContext, ToolRun } from './context.js';
import { decidePermission } from './permissions.js';
import { isMutatingTool, isRerunnableTool } from './toolSpecs.js';
import { toolCallsOf } from './transcript.js';
import { ASK_USER_TOOL, questionsOf, type UserQuestion } from './askUser.js';
import { isSubagentCall, type SubagentActorInput, subagentTaskOf } from './subagents.js';
import type { ToolHookInput } from './actorInputs.js';
import { hookActorId } from './actorNames.js';
import type { CompletedToolInfo } from './actions.js';
import type { ToolSpec } from './config.js';
import type { LlmResponse, ToolCall, ToolOutcome } from './messages.js';

/**
 * What a permission pass decided: the new runs, the calls to start now, the calls that now wait
 * for a person's approval, and the `ask_user` calls whose questions now wait for answers.
 *
 * @example
 * const { runs, start, ask, questions } = settleToolRuns(core.context);
 */
export interface ToolRunPlan {
  runs: ToolRun[];
  start: ToolCall[];
  ask: ToolCall[];
  questions: QuestionsAsked[];
  /** Calls the `preToolUse` hook sees first. */
  hooks: ToolHookInput[];
}

/**
 * The questions of one `ask_user` call, as the chart puts them to the user.
 *
 * @example
 * const asked: QuestionsAsked = { callId: 'toolu_1', questions: [{ header: 'Database', question: 'Which one?' }] };
 */
export interface QuestionsAsked {
  callId: string;
  questions: UserQuestion[];
}

/**
 * The runs of a fresh response: calls whose input never parsed are done at once with an error
 * the model can act on; the others wait for the permission check.
 *
 * @example
 * toolRunsOf(response); // [{ call, status: 'pending' }, …]
 */
export function toolRunsOf(response: LlmResponse): ToolRun[] {
  const inputErrors = response.toolInputErrors;
  return toolCallsOf(response.message).map((call): ToolRun => {
    const inputError = inputErrors?.[call.id];
    if (inputError === undefined) return { call, status: 'pending' };
    return { call, status: 'done', outcome: errorOutcome(`invalid tool input: ${inputError}`) };
  });
}

/**
 * Checks every `pending` and `awaitingApproval` call against the permissions: allowed calls
 * start, refused calls are done with the reason, the rest wait for approval. A pending `ask_user`
 * call (when the tool is on) needs no permission: its questions wait for answers, or, when they
 * are malformed, it is answered with what is wrong. With the `preToolUse` hook on, a pending call
 * the hook has not seen waits for it first (`preHook`), and is checked with its verdict once it
 * has. Run on entering `ExecutingTools` and again whenever the mode, a remembered decision or a
 * hook's verdict changes.
 *
 * @example
 * const plan = settleToolRuns(context);
 * plan.start; // calls to execute now
 */
export function settleToolRuns(
  context: Pick<AgentContext, 'toolRuns' | 'permissionMode' | 'rememberedDecisions' | 'config'>,
): ToolRunPlan {
  const start: ToolCall[] = [];
  const ask: ToolCall[] = [];
  const questions: QuestionsAsked[] = [];
  const hooks: ToolHookInput[] = [];
  const runs = context.toolRuns.map((run): ToolRun => {
    if (run.status === 'pending' && isQuestionCall(run.call, context.config)) {
      const read = questionsOf(run.call.input);
      if ('problem' in read) {
        return { ...run, status: 'done', outcome: errorOutcome(`invalid input: ${read.problem}`) };
      }
      questions.push({ callId: run.call.id, questions: read.questions });
      return { ...run, status: 'awaitingAnswer' };
    }
    if (run.status === 'pending' && isSubagentCall(run.call, context.config)) {
      const read = subagentTaskOf(run.call.input, context.config.agents);
      if ('problem' in read) {
        return { ...run, status: 'done', outcome: errorOutcome(`invalid input: ${read.problem}`) };
      }
    }
    if (run.status === 'pending' && context.config.hooks.preToolUse && run.verdict === undefined) {
      hooks.push({ hook: 'preToolUse', call: run.call });
      return { ...run, status: 'preHook' };
    }
    if (run.status !== 'pending' && run.status !== 'awaitingApproval') return run;
    const decision = decidePermission(run.call.name, context, run.verdict);
    if (decision.kind === 'allow') {
      start.push(run.call);
      return { ...run, status: 'running' };
    }
    if (decision.kind === 'deny') {
      return { ...run, status: 'done', outcome: errorOutcome(decision.reason) };
    }
    if (run.status === 'pending') ask.push(run.call);
    return { ...run, status: 'awaitingApproval' };
  });
  return { runs, start, ask, questions, hooks };
}

/**
 * The call is the built-in `ask_user` tool's, which the chart answers itself.
 *
 * @example
 * isQuestionCall(call, context.config); // true for an ask_user call with askUser on
 */
export function isQuestionCall(
  call: ToolCall,
  config: Pick<AgentContext['config'], 'askUser'>,
): boolean {
  return config.askUser && call.name === ASK_USER_TOOL;
}

/**
 * The questions still waiting for answers, by call, in call order (for asking again after a
 * restart, or showing them).
 *
 * @example
 * openQuestionsOf(core.context.toolRuns); // [{ callId: 'toolu_1', questions: [...] }]
 */
export function openQuestionsOf(runs: readonly ToolRun[]): QuestionsAsked[] {
  const open: QuestionsAsked[] = [];
  for (const run of runs) {
    if (run.status !== 'awaitingAnswer') continue;
    const read = questionsOf(run.call.input);
    if ('questions' in read) open.push({ callId: run.call.id, questions: read.questions });
  }
  return open;
}

/**
 * The runs with one call's fields changed (the array is copied: a response has a handful of
 * calls, and snapshots must stay immutable).
 *
 * @example
 * updateRun(runs, 't1', { status: 'done', outcome });
 */
export function updateRun(
  runs: readonly ToolRun[],
  callId: string,
  change: Partial<ToolRun>,
): ToolRun[] {
  return runs.map((run) => (run.call.id === callId ? withChange(run, change) : run));
}

/** `run` with `change` applied; a field the change sets to `undefined` is removed. */
function withChange(run: ToolRun, change: Partial<ToolRun>): ToolRun {
  const next: ToolRun = { ...run, ...change };
  for (const key of Object.keys(change) as (keyof ToolRun)[]) {
    if (change[key] === undefined) delete next[key];
  }
  return next;
}

/**
 * Ends every call still open with `outcome` (an interrupt or a shutdown).
 *
 * @example
 * closeOpenRuns(runs, errorOutcome('interrupted'));
 */
export function closeOpenRuns(runs: readonly ToolRun[], outcome: ToolOutcome): ToolRun[] {
  return runs.map((run) => (run.status === 'done' ? run : { ...run, status: 'done', outcome }));
}

/**
 * What the model is told about calls that did not end on their own. The wording never claims
 * more than is known: a mutating call that was running and never reported may have done its work.
 */
export const ENDING_TEXT = {
  interruptedBeforeRun: 'interrupted: the user interrupted the turn before this tool call ran',
  interruptedUnanswered:
    'interrupted: the user interrupted the turn without answering these questions',
  interruptedUnknown:
    'interrupted: the user interrupted the turn before this tool call finished; it may or may not have taken effect',
  interruptedReadOnly: 'interrupted: the user interrupted the turn before this tool call finished',
  interruptedStopped: 'interrupted: the user interrupted the turn and the call stopped',
  shutDownBeforeRun: 'cancelled: the agent shut down before this tool call ran',
  shutDownUnanswered: 'cancelled: the agent shut down before the user answered these questions',
  shutDownUnknown:
    'cancelled: the agent shut down before this tool call finished; it may or may not have taken effect',
  shutDownReadOnly: 'cancelled: the agent shut down before this tool call finished',
  crashedUnknown:
    'interrupted: the process stopped while this call was running; it may or may not have taken effect',
  unansweredInTranscript:
    'interrupted: the transcript this agent started from has no result for this call; it may or may not have taken effect',
} as const;

/**
 * The runs after an interrupt: calls that never started are done ("before this tool call ran");
 * running calls wait, `cancelling`, to learn how they ended — unless there is no grace period
 * (`graceMs` 0), in which case they are answered at once with what is known.
 *
 * @example
 * interruptRuns(context.toolRuns, context.config.tools, 5000);
 */
export function interruptRuns(
  runs: readonly ToolRun[],
  specs: readonly ToolSpec[],
  graceMs: number,
): ToolRun[] {
  return runs.map((run): ToolRun => {
    if (run.status === 'done' || run.status === 'cancelling') return run;
    if (run.status === 'awaitingAnswer') {
      return { ...run, status: 'done', outcome: errorOutcome(ENDING_TEXT.interruptedUnanswered) };
    }
    // The call ran and has its outcome; only its hook is left undone.
    if (run.status === 'postHook') return { ...run, status: 'done' };
    if (run.status !== 'running') {
      return { ...run, status: 'done', outcome: errorOutcome(ENDING_TEXT.interruptedBeforeRun) };
    }
    if (graceMs > 0) return { ...run, status: 'cancelling' };
    return { ...run, status: 'done', outcome: unknownEnding(run, specs) };
  });
}

/**
 * A cancelling call's real ending: its own outcome when it completed anyway, else "the call
 * stopped" with its reason.
 *
 * @example
 * settleCancelledRun(runs, 't1', { status: 'success', output: 'written' });
 */
export function settleCancelledRun(
  runs: readonly ToolRun[],
  callId: string,
  outcome: ToolOutcome,
): ToolRun[] {
  const ending =
    outcome.status === 'success'
      ? outcome
      : errorOutcome(`${ENDING_TEXT.interruptedStopped} (${outcome.error.message})`);
  return updateRun(runs, callId, { status: 'done', outcome: ending });
}

/**
 * Cancelling calls that never reported (the grace period ended, or the process stopped while
 * waiting): mutating ones may or may not have taken effect.
 *
 * @example
 * expireCancelledRuns(context.toolRuns, context.config.tools);
 */
export function expireCancelledRuns(
  runs: readonly ToolRun[],
  specs: readonly ToolSpec[],
): ToolRun[] {
  return runs.map((run) =>
    run.status === 'cancelling'
      ? { ...run, status: 'done', outcome: unknownEnding(run, specs) }
      : run,
  );
}

/**
 * The runs when the agent shuts down: every open call is done, saying whether it ever ran and,
 * for a mutating one that did, that it may or may not have taken effect.
 *
 * @example
 * shutDownRuns(context.toolRuns, context.config.tools);
 */
export function shutDownRuns(runs: readonly ToolRun[], specs: readonly ToolSpec[]): ToolRun[] {
  return runs.map((run): ToolRun => {
    if (run.status === 'done') return run;
    if (run.status === 'postHook') return { ...run, status: 'done' };
    const started = run.status === 'running' || run.status === 'cancelling';
    const text =
      run.status === 'awaitingAnswer'
        ? ENDING_TEXT.shutDownUnanswered
        : !started
          ? ENDING_TEXT.shutDownBeforeRun
          : isMutatingTool(run.call.name, specs)
            ? ENDING_TEXT.shutDownUnknown
            : ENDING_TEXT.shutDownReadOnly;
    return { ...run, status: 'done', outcome: errorOutcome(text) };
  });
}

/**
 * Calls that start now: a task for a subagent in a `subagent` actor, given its input; every other
 * call in a `tool` actor. A task whose input is not one for a configured agent (a person may have
 * edited it on approval) is answered at once instead.
 *
 * @example
 * const { runs, start, subagents } = startCalls(context, plan.runs, plan.start);
 */
export function startCalls(
  context: Pick<AgentContext, 'config' | 'permissionMode'>,
  runs: ToolRun[],
  calls: readonly ToolCall[],
): { runs: ToolRun[]; start: ToolCall[]; subagents: SubagentActorInput[] } {
  const start: ToolCall[] = [];
  const subagents: SubagentActorInput[] = [];
  let settled = runs;
  for (const call of calls) {
    if (!isSubagentCall(call, context.config)) {
      start.push(call);
      continue;
    }
    const read = subagentTaskOf(call.input, context.config.agents);
    if ('problem' in read) {
      const outcome = errorOutcome(`invalid input: ${read.problem}`);
      settled = updateRun(settled, call.id, { status: 'done', outcome });
      continue;
    }
    const spec = context.config.agents[read.task.agent]!;
    subagents.push({ call, task: read.task, spec, permissionMode: context.permissionMode });
  }
  return { runs: settled, start, subagents };
}

/**
 * What resuming does with calls that were running when the process stopped: a call that never
 * started, or whose tool is read-only or idempotent, runs (again); any other is done, as possibly
 * having taken effect. `startedIds` omitted: every running call is taken to have started.
 *
 * @example
 * const { runs, start } = resumeRuns(context.toolRuns, context.config.tools, ['t1']);
 */
export function resumeRuns(
  runs: readonly ToolRun[],
  specs: readonly ToolSpec[],
  startedIds: readonly string[] | undefined,
): { runs: ToolRun[]; start: ToolCall[]; hooks: ToolHookInput[] } {
  const start: ToolCall[] = [];
  // A hook that had not answered runs again: hooks decide, and decide again the same way.
  const hooks = runs.flatMap((run) => hookOf(run));
  const next = runs.map((run): ToolRun => {
    if (run.status === 'cancelling')
      return { ...run, status: 'done', outcome: unknownEnding(run, specs) };
    if (run.status !== 'running') return run;
    const started = startedIds === undefined || startedIds.includes(run.call.id);
    if (!started || isRerunnableTool(run.call.name, specs)) {
      start.push(run.call);
      return run;
    }
    return { ...run, status: 'done', outcome: errorOutcome(ENDING_TEXT.crashedUnknown) };
  });
  return { runs: next, start, hooks };
}

/** The hook a run waits for, as its actor's input: none, `preToolUse` or `postToolUse`. */
function hookOf(run: ToolRun): ToolHookInput[] {
  if (run.status === 'preHook') return [{ hook: 'preToolUse', call: run.call }];
  if (run.status === 'postHook' && run.outcome !== undefined) {
    return [{ hook: 'postToolUse', call: run.call, outcome: run.outcome }];
  }
  return [];
}

/**
 * The ids of the actors working on calls not yet done: a call's own actor, or its hook's while
 * the call waits for a hook. What an interrupt, a shutdown or a restore stops.
 *
 * @example
 * openActorIds(core.context.toolRuns); // ['t1', 't2#hook']
 */
export function openActorIds(runs: readonly ToolRun[]): string[] {
  const ids: string[] = [];
  for (const run of runs) {
    if (run.status === 'done') continue;
    const hooked = run.status === 'preHook' || run.status === 'postHook';
    ids.push(hooked ? hookActorId(run.call.id) : run.call.id);
  }
  return ids;
}

function unknownEnding(run: ToolRun, specs: readonly ToolSpec[]): ToolOutcome {
  return errorOutcome(
    isMutatingTool(run.call.name, specs)
      ? ENDING_TEXT.interruptedUnknown
      : ENDING_TEXT.interruptedReadOnly,
  );
}

/**
 * The ids of calls not yet done: the work a `Cancel` must abort.
 *
 * @example
 * openRunIds(core.context.toolRuns); // ['t2']
 */
export function openRunIds(runs: readonly ToolRun[]): string[] {
  const ids: string[] = [];
  for (const run of runs) if (run.status !== 'done') ids.push(run.call.id);
  return ids;
}

/**
 * The ids of calls with a given status.
 *
 * @example
 * runIdsWithStatus(core.context.toolRuns, 'cancelling'); // ['t2']
 */
export function runIdsWithStatus(runs: readonly ToolRun[], status: ToolRun['status']): string[] {
  return runs.filter((run) => run.status === status).map((run) => run.call.id);
}

/**
 * Every call of the response in call order as `{name, succeeded}` (Loom's shape for hooks).
 *
 * @example
 * completedToolsOf(core.context.toolRuns); // [{ name: 'edit_file', succeeded: true }]
 */
export function completedToolsOf(runs: readonly ToolRun[]): CompletedToolInfo[] {
  return runs.map((run) => ({ name: run.call.name, succeeded: run.outcome?.status === 'success' }));
}

/**
 * A failed outcome with this message.
 *
 * @example
 * errorOutcome('no such file: a.txt'); // { status: 'error', error: { message: 'no such file: a.txt' } }
 */
export function errorOutcome(message: string): ToolOutcome {
  return { status: 'error', error: { message } };
}
