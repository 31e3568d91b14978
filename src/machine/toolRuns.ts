/**
 * How the tool calls of one response move from `pending` to `done`: the permission check on
 * entering `ExecutingTools`, approvals, mode changes, outcomes and interrupts. Plain functions
 * over the context; the chart wires their results into assign, spawn and emit actions.
 */
import type { AgentContext, ToolRun } from './context.js';
import { decidePermission } from './permissions.js';
import { toolCallsOf } from './transcript.js';
import type { CompletedToolInfo, LlmResponse, ToolCall, ToolOutcome } from './types.js';

/**
 * What a permission pass decided: the new runs, the calls to start now and the calls that now
 * wait for a person.
 *
 * @example
 * const { runs, start, ask } = settleToolRuns(core.context);
 */
export interface ToolRunPlan {
  runs: ToolRun[];
  start: ToolCall[];
  ask: ToolCall[];
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
 * start, refused calls are done with the reason, the rest wait for approval. Run on entering
 * `ExecutingTools` and again whenever the mode or a remembered decision changes.
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
  const runs = context.toolRuns.map((run): ToolRun => {
    if (run.status !== 'pending' && run.status !== 'awaitingApproval') return run;
    const decision = decidePermission(run.call.name, context);
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
  return { runs, start, ask };
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
