/**
 * The chart's actions about the hooks on a turn: the `userPromptSubmit` hook, which checks a
 * prompt (held at the head of the queue) before it starts a turn, and the `stop` hook, which may
 * have a turn go on once when the model ends it. Both fail open: a failed hook changes nothing,
 * and the user is told. (The turn that a checked prompt starts is in `turnActions.ts`.)
 */
import { assertEvent } from 'xstate';
import { runHookAction } from './actorInputs.js';
import { appendedUserText, type ChartAction, type ChartStep } from './chartStep.js';
import type { AgentContext } from './context.js';
import { promptHookInput, stopHookInput } from './turnHookInputs.js';

export const runPromptHook: ChartAction = (context) => ({
  emit: [runHookAction(promptHookInput(context))],
});

/**
 * The `userPromptSubmit` hook blocked the prompt: it leaves the queue without reaching the
 * transcript, and is handed back with the hook's reason.
 */
export const blockPrompt: ChartAction = (context, event) => {
  assertEvent(event, 'UserPromptSubmitDecision');
  const why = event.reason === undefined ? '' : `: ${event.reason}`;
  return dropHeldPrompt(context, `the userPromptSubmit hook blocked it${why}`);
};

/**
 * An interrupt came before the `userPromptSubmit` hook decided: the hook is cancelled, and the
 * prompt, which the model has not seen, is handed back rather than sent unchecked.
 */
export const withdrawPrompt: ChartAction = (context) => {
  const dropped = dropHeldPrompt(
    context,
    'the turn was interrupted before the userPromptSubmit hook decided',
  );
  return { ...dropped, emit: [{ type: 'Cancel', hook: true }, ...(dropped.emit ?? [])] };
};

/** The prompt held at the head of the queue leaves it, handed back with `reason`. */
function dropHeldPrompt(context: AgentContext, reason: string): ChartStep {
  const [prompt, ...rest] = context.queue;
  if (prompt === undefined) return {};
  return { context: { queue: rest }, emit: [{ type: 'PromptDropped', prompt, reason }] };
}

export const runStopHook: ChartAction = (context) => ({
  emit: [runHookAction(stopHookInput(context))],
});

/**
 * The `stop` hook has the turn go on: its reason is the model's next instruction, and it is not
 * asked again until the next turn.
 */
export const continueTurn: ChartAction = (context, event) => {
  assertEvent(event, 'StopDecision');
  return {
    context: {
      messages: appendedUserText(context, `[stop hook] ${event.reason ?? ''}`),
      turn: { ...context.turn, stopHookContinued: true },
    },
  };
};

/** A `stop` hook that failed is skipped: the turn ends as it would have, and the user is told. */
export const reportStopHookFailure: ChartAction = (_context, event) => {
  assertEvent(event, 'StopDecision');
  if (event.error === undefined) return {};
  return {
    emit: [
      {
        type: 'DisplayError',
        message: `${event.error}; the turn ended as it would have`,
        source: 'hook',
      },
    ],
  };
};
