/**
 * The chart's actions about the hooks on a turn: the `userPromptSubmit` hook, which checks a
 * prompt (held at the head of the queue) before it starts a turn, and the `stop` hook, which may
 * have a turn go on once when the model ends it. Both fail open: a failed hook changes nothing,
 * and the user is told. (The turn that a checked prompt starts is in `turnActions.ts`.)
 */
import { assertEvent } from 'xstate';
import { appendedUserText, type ChartAction } from './chartStep.js';
import { promptHookInput, stopHookInput } from './turnHookInputs.js';

export const runPromptHook: ChartAction = (context) => {
  const { prompt } = promptHookInput(context);
  return { emit: [{ type: 'RunUserPromptSubmitHook', prompt }] };
};

/**
 * The `userPromptSubmit` hook blocked the prompt: it leaves the queue without reaching the
 * transcript, and is handed back with the hook's reason.
 */
export const blockPrompt: ChartAction = (context, event) => {
  assertEvent(event, 'UserPromptSubmitDecision');
  const [prompt, ...rest] = context.queue;
  if (prompt === undefined) return {};
  const reason = `the userPromptSubmit hook blocked it${event.reason === undefined ? '' : `: ${event.reason}`}`;
  return { context: { queue: rest }, emit: [{ type: 'PromptDropped', prompt, reason }] };
};

/**
 * An interrupt came before the `userPromptSubmit` hook decided: the hook is cancelled, and the
 * prompt, which the model has not seen, is handed back rather than sent unchecked.
 */
export const withdrawPrompt: ChartAction = (context) => {
  const [prompt, ...rest] = context.queue;
  const cancel = { type: 'Cancel', hook: true } as const;
  if (prompt === undefined) return { emit: [cancel] };
  return {
    context: { queue: rest },
    emit: [
      cancel,
      {
        type: 'PromptDropped',
        prompt,
        reason: 'the turn was interrupted before the userPromptSubmit hook decided',
      },
    ],
  };
};

export const runStopHook: ChartAction = (context) => {
  const { response } = stopHookInput(context);
  return { emit: [{ type: 'RunStopHook', response }] };
};

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
