/**
 * The abstraction of a snapshot the graph walk uses as a state's identity.
 *
 * XState's default key is the whole snapshot, and the transcript grows with every event, so no
 * state would ever repeat and the walk would not end. The key keeps exactly what the chart's
 * guards and actions branch on:
 *
 * - the state, nested states included (`WaitingForUserInput.SettlingCancelledCalls`,
 *   `ProcessingLlmResponse.CheckingStop`), and the actor status, so a failed machine never looks
 *   like a live one;
 * - `retries` (against `maxRetries`: `attemptsLeft`);
 * - the queue length (`hasQueuedInput`; in `CheckingPrompt` its head is the prompt being checked);
 * - during a turn, whether the `stop` hook already had it go on (`stopHookDue`); between turns
 *   it is left out, since every turn starts without it;
 * - the permission mode and the remembered decisions (`settleToolRuns`);
 * - whether a limit is reached (`limitReached`, `budgetSpent`);
 * - in a turn that asks for a structured answer, whether it was given and how often the model
 *   missed it (`outputSettled`, `outputAskable`);
 * - in `CallingLlm.Streaming`, whether text and tool-call fragments have streamed (what an
 *   interrupt keeps, and whether a fragment opens or extends a call);
 * - where the walk compacts (a variant with a small context window), whether the next request
 *   passes the threshold and where the transcript could be cut (`compactionDue`, `compactable`):
 *   already, or how many messages there are until it can be (the cut is before an assistant
 *   message at index 2 or later);
 * - in `ExecutingTools`, and in `WaitingForUserInput` while an interrupt waits for aborted calls,
 *   each run's tool, status and outcome (`allToolsDone`, `anyMutatingToolSucceeded`,
 *   `isRunningToolCall`, `isAwaitingApproval`, `approvalsWaiting`, `questionsWaiting`,
 *   `answersOpenQuestions`, `toolsSettling`, `isCancellingToolCall`).
 *
 * Left out on purpose: the messages, usage, the response counter, the jitter state, the text
 * itself and the instructions a compaction's summary is asked to keep, which change what the
 * chart says but never which transition it takes.
 */
import {
  type AgentContext,
  type AgentStateValue,
  budgetSpent,
  DEFAULT_CONTEXT_WINDOW,
  describeStateValue,
  requestTokens,
  topStateOf,
  turnLimitReached,
} from '../../src/machine/index.js';
import { compactable } from '../../src/machine/guards.js';
import type { WalkState } from './eventsByState.js';

/**
 * Where the chart stands, as the walk tells places apart: the nested state's path
 * (`WaitingForUserInput.CheckingPrompt`, `ProcessingLlmResponse.CheckingStop`), except in
 * `ExecutingTools`, whose regions follow from the tool runs (which the key and the events read
 * anyway).
 *
 * @example
 * placeOf({ ProcessingLlmResponse: 'CheckingStop' }); // 'ProcessingLlmResponse.CheckingStop'
 * placeOf({ ExecutingTools: { Hooks: 'Idle', Approvals: 'Waiting', Subagents: 'Idle', Questions: 'Idle' } }); // 'ExecutingTools'
 */
export function placeOf(value: AgentStateValue): string {
  return topStateOf(value) === 'ExecutingTools' ? 'ExecutingTools' : describeStateValue(value);
}

/** A snapshot as the key needs it (machine snapshots and runner views both fit). */
export interface KeyedState extends WalkState {
  status: string;
}

/**
 * The abstract key of a state, as a string.
 *
 * @example
 * stateKey(snapshot); // '{"state":"Error","retries":1,"queued":0}'
 */
export function stateKey(snapshot: KeyedState): string {
  const { context } = snapshot;
  const value = describeStateValue(snapshot.value);
  // A final state has nothing left to tell apart: every shutdown is the same end.
  if (value === 'ShuttingDown') return JSON.stringify({ state: value, status: snapshot.status });
  const key: Record<string, unknown> = {
    state: value,
    retries: context.retries,
    queued: context.queue.length,
  };
  if (snapshot.status !== 'active') key.status = snapshot.status;
  // The limits read sums the key leaves out; whether one is reached is what they branch on.
  if (budgetSpent(context)) key.limit = 'budget';
  else if (turnLimitReached(context)) key.limit = 'turns';
  // The stop hook has a turn go on once; the next turn starts afresh, so only a turn keys it.
  if (context.turn.stopHookContinued && topStateOf(snapshot.value) !== 'WaitingForUserInput') {
    key.stopHookContinued = true;
  }
  if (context.permissionMode !== null) key.mode = context.permissionMode;
  // A turn that asks for its answer branches on whether it has it, and on how often it missed.
  if (context.output !== null) {
    key.output = context.output.answer !== null ? 'given' : context.output.misses;
  }
  const remembered = Object.entries(context.rememberedDecisions).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  if (remembered.length > 0) key.remembered = remembered.map(([tool, d]) => `${tool}:${d}`);
  if (value === 'CallingLlm.Streaming') {
    key.streamedText = context.streamingText.length > 0;
    key.streamedCalls = context.streamingToolCalls.length;
  }
  const compaction = compactionKey(context);
  if (compaction !== null) key.compaction = compaction;
  // Runs matter while tools run, and after an interrupt until the aborted ones are answered.
  if (
    placeOf(snapshot.value) === 'ExecutingTools' ||
    context.toolRuns.some((run) => run.status === 'cancelling')
  ) {
    key.runs = context.toolRuns.map(
      (run) =>
        `${run.call.name}:${run.status}${run.outcome ? `:${run.outcome.status}` : ''}${run.verdict ? `:${run.verdict}` : ''}`,
    );
  }
  return JSON.stringify(key);
}

/**
 * What compaction branches on, where the walk compacts at all: whether the next request passes
 * the threshold (a reply whose usage is most of the small window, not yet compacted away), and
 * whether the transcript can be cut now (`cut: 'now'`) or, if not, how many messages it has (with
 * two, the next assistant message can be cut before; with fewer, not yet). Every variant but the
 * compaction ones keeps the default window, which no path comes near: `null` there, so their
 * keys stay as they were.
 */
function compactionKey(context: AgentContext): { over: boolean; cut: 'now' | number } | null {
  const settings = context.config.compaction;
  if (settings === null || settings.contextWindow === DEFAULT_CONTEXT_WINDOW) return null;
  return {
    over: requestTokens(context) > settings.threshold * settings.contextWindow,
    cut: compactable(context) ? 'now' : Math.min(context.messages.length, 2),
  };
}
