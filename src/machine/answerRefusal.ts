/**
 * Why the chart did not take a `UserAnswer`, in a sentence a caller can act on. The chart's guard
 * (`answersOpenQuestions`) only says yes or no; this reads the same runs and the same
 * `answersProblem` to say which: the call is not waiting for answers, or the answers do not fit
 * its questions. It decides nothing: `admit` asks it only once the chart has refused.
 */
import { answersProblem, ASK_USER_TOOL } from './askUser.js';
import type { ToolRun } from './context.js';
import type { UserAnswerEvent } from './events.js';
import { openQuestionsOf } from './toolRuns.js';

/**
 * The sentence for a `UserAnswer` the chart refused where it stands.
 *
 * @example
 * answerRefusal(agent.context.toolRuns, { type: 'UserAnswer', callId: 'toolu_9', answers: ['x'] });
 * // "UserAnswer ignored: tool call 'toolu_9' is not waiting for answers (no call of the current response has that id); nothing changed"
 */
export function answerRefusal(runs: readonly ToolRun[], event: UserAnswerEvent): string {
  const { callId } = event;
  const asked = openQuestionsOf(runs).find((open) => open.callId === callId);
  if (asked !== undefined) {
    const problem = answersProblem(asked.questions, event.answers);
    const count = asked.questions.length;
    const detail = `tool call '${callId}' asks ${count} question${count === 1 ? '' : 's'}`;
    return `UserAnswer ignored: ${problem ?? 'the answers do not fit the questions'} (${detail}: answer each, in order, '' for none); nothing changed`;
  }
  return `UserAnswer ignored: tool call '${callId}' is not waiting for answers (${whyNotWaiting(runs, callId)}); nothing changed`;
}

function whyNotWaiting(runs: readonly ToolRun[], callId: string): string {
  const run = runs.find((candidate) => candidate.call.id === callId);
  if (run === undefined) return 'no call of the current response has that id';
  if (run.call.name !== ASK_USER_TOOL) return `it is a ${run.call.name} call, not a question`;
  if (run.status === 'done') return 'it has its result already: answered, interrupted or cancelled';
  return `it is ${run.status}`;
}
