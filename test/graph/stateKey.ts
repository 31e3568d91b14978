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
 * - in `CallingLlm`, whether text and tool-call fragments have streamed (what an interrupt
 *   keeps, and whether a fragment opens or extends a call);
 * - in `ExecutingTools`, and in `WaitingForUserInput` while an interrupt waits for aborted calls,
 *   each run's tool, status and outcome (`allToolsDone`, `anyMutatingToolSucceeded`,
 *   `isRunningToolCall`, `isAwaitingApproval`, `approvalsWaiting`, `questionsWaiting`,
 *   `answersOpenQuestions`, `toolsSettling`, `isCancellingToolCall`).
 *
 * Left out on purpose: the messages, usage, the response counter, the jitter state and the text
 * itself, which change what the chart says but never which transition it takes.
 */
import {
  type AgentStateValue,
  budgetSpent,
  describeStateValue,
  topStateOf,
  turnLimitReached,
} from '../../src/machine/index.js';
import type { WalkState } from './eventsByState.js';

/**
 * Where the chart stands, as the walk tells places apart: the nested state's path
 * (`WaitingForUserInput.CheckingPrompt`, `ProcessingLlmResponse.CheckingStop`), except in
 * `ExecutingTools`, whose regions follow from the tool runs (which the key and the events read
 * anyway).
 *
 * @example
 * placeOf({ ProcessingLlmResponse: 'CheckingStop' }); // 'ProcessingLlmResponse.CheckingStop'
 * placeOf({ ExecutingTools: { Hooks: 'Idle', Approvals: 'Waiting', Questions: 'Idle' } }); // 'ExecutingTools'
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
  if (value === 'CallingLlm') {
    key.streamedText = context.streamingText.length > 0;
    key.streamedCalls = context.streamingToolCalls.length;
  }
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
