/**
 * The chart's guards: small, named, pure predicates. The machine refers to them by name, so the
 * diagrams and the generated tests show `LlmError [retryableError && attemptsLeft]`.
 */
import { answersProblem, questionsOf } from './askUser.js';
import { compactionSplit } from './compaction.js';
import type { AgentContext } from './context.js';
import { isSubagentCall } from './subagents.js';
import { OUTPUT_REPAIRS } from './outputSpec.js';
import { isMutatingTool } from './toolSpecs.js';
import type { AgentEvent } from './events.js';
import type { LlmErrorKind } from './messages.js';
import { type AgentStateName, type AgentStateValue, topStateOf } from './stateNames.js';

/**
 * Error kinds that never succeed on a retry: the request or the credentials must change first.
 *
 * @example
 * NON_RETRYABLE_ERRORS.has('auth'); // true
 */
export const NON_RETRYABLE_ERRORS: ReadonlySet<LlmErrorKind> = new Set(['auth', 'invalid_request']);

/**
 * Another attempt is allowed after the failure being handled: `maxRetries` counts total attempts
 * (Loom's rule), so with 3 the first two failures retry and the third gives up.
 *
 * @example
 * attemptsLeft({ retries: 1, config: { maxRetries: 3 } }); // true: this is failure two of three
 */
export function attemptsLeft(
  context: Pick<AgentContext, 'retries'> & {
    config: Pick<AgentContext['config'], 'maxRetries'>;
  },
): boolean {
  return context.retries + 1 < context.config.maxRetries;
}

/**
 * The model-call failure may succeed if tried again (not `auth` or `invalid_request`).
 *
 * @example
 * retryableError({ type: 'LlmError', error: { kind: 'overloaded', message: 'Overloaded' } }); // true
 */
export function retryableError(event: AgentEvent): boolean {
  return event.type === 'LlmError' && !NON_RETRYABLE_ERRORS.has(event.error.kind);
}

/**
 * Every tool call of the response has its outcome (completed, failed, denied or interrupted).
 *
 * @example
 * allToolsDone(core.context); // true once the last ToolCompleted arrived
 */
export function allToolsDone(context: Pick<AgentContext, 'toolRuns'>): boolean {
  for (const run of context.toolRuns) if (run.status !== 'done') return false;
  return true;
}

/**
 * At least one mutating tool call succeeded, so the workspace may have changed and the
 * post-tools hook (git auto-commit) should run. A failed mutating call changes nothing.
 *
 * @example
 * anyMutatingToolSucceeded(core.context); // true after a successful edit_file
 */
export function anyMutatingToolSucceeded(
  context: Pick<AgentContext, 'toolRuns' | 'config'>,
): boolean {
  return context.toolRuns.some(
    (run) =>
      run.outcome?.status === 'success' && isMutatingTool(run.call.name, context.config.tools),
  );
}

/**
 * The latest response asked for at least one tool call.
 *
 * @example
 * hasToolCalls(core.context); // true after a response with tool_use blocks
 */
export function hasToolCalls(context: Pick<AgentContext, 'toolRuns'>): boolean {
  return context.toolRuns.length > 0;
}

/**
 * The latest response ended in a refusal: its tool calls must not run.
 *
 * @example
 * responseRefused(core.context); // true when stop_reason was 'refusal'
 */
export function responseRefused(context: Pick<AgentContext, 'stopReason'>): boolean {
  return context.stopReason === 'refusal';
}

/**
 * User input is waiting for the turn to end.
 *
 * @example
 * hasQueuedInput(core.context); // true after a UserInput during a turn
 */
export function hasQueuedInput(context: Pick<AgentContext, 'queue'>): boolean {
  return context.queue.length > 0;
}

/**
 * The agent is idle: waiting for the user, with nothing queued, every tool call settled (an
 * interrupted call may still be reporting how it ended) and no compaction under way.
 *
 * @example
 * atRest(snapshot.value, snapshot.context); // true between turns
 */
export function atRest(
  state: AgentStateValue | AgentStateName,
  context: Pick<AgentContext, 'queue' | 'toolRuns' | 'window'>,
): boolean {
  return (
    topStateOf(state) === 'WaitingForUserInput' &&
    !hasQueuedInput(context) &&
    allToolsDone(context) &&
    context.window.compacting === null
  );
}

/**
 * The event is about a tool call of this response that is still running; a late event for a
 * cancelled or finished call is ignored.
 *
 * @example
 * isRunningToolCall(core.context, { type: 'ToolCompleted', callId: 't1', outcome }); // true while t1 runs
 */
export function isRunningToolCall(
  context: Pick<AgentContext, 'toolRuns'>,
  event: AgentEvent,
): boolean {
  if (event.type !== 'ToolCompleted' && event.type !== 'ToolProgress') return false;
  return context.toolRuns.some((run) => run.call.id === event.callId && run.status === 'running');
}

/**
 * An interrupt now would abort tool calls that are running, and there is a grace period to learn
 * how they really ended.
 *
 * @example
 * toolCallsNeedGrace(core.context); // true while a call runs and toolGraceMs > 0
 */
export function toolCallsNeedGrace(context: Pick<AgentContext, 'toolRuns' | 'config'>): boolean {
  return context.config.toolGraceMs > 0 && context.toolRuns.some((run) => run.status === 'running');
}

/**
 * The turn has made as many model calls as `maxTurns` allows: it ends instead of calling the
 * model again.
 *
 * @example
 * turnLimitReached(core.context); // true after the 100th response of a turn, by default
 */
export function turnLimitReached(
  context: Pick<AgentContext, 'turn'> & { config: Pick<AgentContext['config'], 'maxTurns'> },
): boolean {
  const { maxTurns } = context.config;
  return maxTurns !== null && context.turn.usage.calls >= maxTurns;
}

/**
 * The session has spent its `maxBudgetUsd`: the model is not called again.
 *
 * @example
 * budgetSpent(core.context); // true once the session's cost reached maxBudgetUsd
 */
export function budgetSpent(
  context: Pick<AgentContext, 'usage'> & { config: Pick<AgentContext['config'], 'maxBudgetUsd'> },
): boolean {
  const { maxBudgetUsd } = context.config;
  const spent = context.usage.costUsd;
  return maxBudgetUsd !== null && spent !== null && spent >= maxBudgetUsd;
}

/**
 * A limit stops the turn before the next model call: `maxTurns` or `maxBudgetUsd`.
 *
 * @example
 * limitReached(core.context);
 */
export function limitReached(context: AgentContext): boolean {
  return turnLimitReached(context) || budgetSpent(context);
}

/**
 * Some tool calls an interrupt aborted have not yet reported how they ended: their results are
 * not in the transcript yet, so no new turn may start.
 *
 * @example
 * toolsSettling(core.context); // true right after an interrupt during a running tool call
 */
export function toolsSettling(context: Pick<AgentContext, 'toolRuns'>): boolean {
  return context.toolRuns.some((run) => run.status === 'cancelling');
}

/**
 * The event reports how a tool call an interrupt aborted actually ended.
 *
 * @example
 * isCancellingToolCall(core.context, { type: 'ToolCompleted', callId: 't1', outcome });
 */
export function isCancellingToolCall(
  context: Pick<AgentContext, 'toolRuns'>,
  event: AgentEvent,
): boolean {
  if (event.type !== 'ToolCompleted') return false;
  return context.toolRuns.some(
    (run) => run.call.id === event.callId && run.status === 'cancelling',
  );
}

/**
 * The approval answers a call that is waiting for one.
 *
 * @example
 * isAwaitingApproval(core.context, { type: 'ToolApproval', callId: 't1', decision: 'allow' });
 */
export function isAwaitingApproval(
  context: Pick<AgentContext, 'toolRuns'>,
  event: AgentEvent,
): boolean {
  if (event.type !== 'ToolApproval') return false;
  return context.toolRuns.some(
    (run) => run.call.id === event.callId && run.status === 'awaitingApproval',
  );
}

/**
 * Some call of the response waits for a person's approval.
 *
 * @example
 * approvalsWaiting(core.context); // true while a bash call waits in the default mode
 */
export function approvalsWaiting(context: Pick<AgentContext, 'toolRuns'>): boolean {
  return context.toolRuns.some((run) => run.status === 'awaitingApproval');
}

/**
 * Some `ask_user` call of the response waits for the user's answers.
 *
 * @example
 * questionsWaiting(core.context); // true until every question call is answered
 */
export function questionsWaiting(context: Pick<AgentContext, 'toolRuns'>): boolean {
  return context.toolRuns.some((run) => run.status === 'awaitingAnswer');
}

/**
 * Some call of the response waits for its `preToolUse` or `postToolUse` hook.
 *
 * @example
 * toolHooksRunning(core.context); // true until the hook has answered for every call
 */
export function toolHooksRunning(context: Pick<AgentContext, 'toolRuns'>): boolean {
  return context.toolRuns.some((run) => run.status === 'preHook' || run.status === 'postHook');
}

/**
 * The event is the hook's answer for a call that waits for that hook: a `PreToolUseDecision` for
 * a call in `preHook`, a `PostToolUseResult` for one in `postHook`.
 *
 * @example
 * isAwaitedHookAnswer(core.context, { type: 'PreToolUseDecision', callId: 't1' });
 */
export function isAwaitedHookAnswer(
  context: Pick<AgentContext, 'toolRuns'>,
  event: AgentEvent,
): boolean {
  const status =
    event.type === 'PreToolUseDecision'
      ? 'preHook'
      : event.type === 'PostToolUseResult'
        ? 'postHook'
        : null;
  if (status === null) return false;
  const { callId } = event as { callId: string };
  return context.toolRuns.some((run) => run.call.id === callId && run.status === status);
}

/**
 * The answers answer an `ask_user` call that waits for them, one per question (a multi-select
 * question may take several choices).
 *
 * @example
 * answersOpenQuestions(core.context, { type: 'UserAnswer', callId: 't1', answers: ['SQLite'] });
 */
export function answersOpenQuestions(
  context: Pick<AgentContext, 'toolRuns'>,
  event: AgentEvent,
): boolean {
  if (event.type !== 'UserAnswer') return false;
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  if (run?.status !== 'awaitingAnswer') return false;
  const read = questionsOf(run.call.input);
  return 'questions' in read && answersProblem(read.questions, event.answers) === null;
}

/**
 * The turn that asks for a structured answer is over: the answer was given, or the model missed
 * it more often than the turn asks again.
 *
 * @example
 * outputSettled(core.context);
 */
export function outputSettled(context: Pick<AgentContext, 'output'>): boolean {
  const { output } = context;
  return output !== null && (output.answer !== null || output.misses > OUTPUT_REPAIRS);
}

/**
 * The model ended a response without the turn's answer, and may be asked once more for it.
 *
 * @example
 * outputAskable(core.context);
 */
export function outputAskable(context: Pick<AgentContext, 'output'>): boolean {
  const { output } = context;
  return output !== null && output.answer === null && output.misses <= OUTPUT_REPAIRS;
}

/**
 * `UserInput` that names the form of its turn's answer: taken only when it starts a turn.
 *
 * @example
 * carriesOutput({ type: 'UserInput', message, output: { schema } }); // true
 */
export function carriesOutput(event: AgentEvent): boolean {
  return event.type === 'UserInput' && event.output !== undefined;
}

/**
 * Prompts wait for the `userPromptSubmit` hook before they start a turn.
 *
 * @example
 * promptHookOn(core.context); // true with config.hooks.userPromptSubmit
 */
export function promptHookOn(context: Pick<AgentContext, 'config'>): boolean {
  return context.config.hooks.userPromptSubmit;
}

/**
 * The `userPromptSubmit` hook blocked the prompt (a failed hook blocks nothing).
 *
 * @example
 * promptBlocked({ type: 'UserPromptSubmitDecision', decision: 'block' }); // true
 */
export function promptBlocked(event: AgentEvent): boolean {
  return (
    event.type === 'UserPromptSubmitDecision' &&
    event.error === undefined &&
    event.decision === 'block'
  );
}

/**
 * A response that would end the turn goes to the `stop` hook first: the hook is on, has not had
 * this turn go on yet, and no limit would stop the turn before its next model call.
 *
 * @example
 * stopHookDue(core.context); // false once the hook had the turn go on
 */
export function stopHookDue(context: AgentContext): boolean {
  return context.config.hooks.stop && !context.turn.stopHookContinued && !limitReached(context);
}

/**
 * The `stop` hook has the turn go on (a failed hook does not).
 *
 * @example
 * turnContinued({ type: 'StopDecision', decision: 'continue', reason: 'run the tests' }); // true
 */
export function turnContinued(event: AgentEvent): boolean {
  return (
    event.type === 'StopDecision' && event.error === undefined && event.decision === 'continue'
  );
}

/**
 * A compaction waits for the `preCompact` hook before it starts.
 *
 * @example
 * preCompactHookOn(core.context); // true with config.hooks.preCompact
 */
export function preCompactHookOn(context: Pick<AgentContext, 'config'>): boolean {
  return context.config.hooks.preCompact;
}

/**
 * The `preCompact` hook vetoed the compaction (a failed hook vetoes nothing).
 *
 * @example
 * compactionBlocked({ type: 'PreCompactDecision', decision: 'block' }); // true
 */
export function compactionBlocked(event: AgentEvent): boolean {
  return (
    event.type === 'PreCompactDecision' && event.error === undefined && event.decision === 'block'
  );
}

/**
 * The transcript has an older part a compaction can summarise (at least one exchange before the
 * latest, which always stays).
 *
 * @example
 * compactable(core.context); // false for a session of one exchange
 */
export function compactable(
  context: Pick<AgentContext, 'messages'> & { config: Pick<AgentContext['config'], 'compaction'> },
): boolean {
  return compactionSplit(context) !== null;
}

export { compactionDue } from './compaction.js';

/**
 * Some task call of the response waits for its subagent's answer.
 *
 * @example
 * subagentsRunning(core.context); // true while a task call runs
 */
export function subagentsRunning(context: Pick<AgentContext, 'toolRuns' | 'config'>): boolean {
  return context.toolRuns.some(
    (run) => run.status === 'running' && isSubagentCall(run.call, context.config),
  );
}
