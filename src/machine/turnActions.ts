/**
 * The chart's actions about turns: user input starting or queued for the next turn, the end of a
 * turn, the permission mode and the tools the next turn may call, and the final shutdown.
 */
import { assertEvent } from 'xstate';
import { appended, type ChartAction, withText } from './chartStep.js';
import { type AgentContext, NEW_TURN } from './context.js';
import type { UserInputEvent } from './events.js';
import { budgetSpent } from './guards.js';
import type { Message } from './messages.js';
import { type ResolvedOutput, resolveOutput } from './outputSpec.js';
import { offeredToolDefinitions } from './toolSpecs.js';

/** The user's input starts a turn. */
export const startTurn: ChartAction = (context, event) => {
  assertEvent(event, 'UserInput');
  return { context: { ...turnStarted(context, event.message), ...turnOutputOf(context, event) } };
};

/** The oldest queued input starts the next turn. */
export const startQueuedTurn: ChartAction = (context) => {
  const [next, ...rest] = context.queue;
  return {
    context: {
      ...turnStarted(context, next ?? null),
      queue: rest,
      ...newTurnOutput(context.config.output),
    },
  };
};

/**
 * The user's input waits for the `userPromptSubmit` hook at the head of the queue, ahead of input
 * queued meanwhile, with the form of its turn's answer (which a queued input cannot carry).
 */
export const holdPrompt: ChartAction = (context, event) => {
  assertEvent(event, 'UserInput');
  return { context: { queue: [event.message, ...context.queue], ...turnOutputOf(context, event) } };
};

/** The oldest queued input, at the head of the queue, waits for the `userPromptSubmit` hook. */
export const holdQueuedPrompt: ChartAction = (context) => ({
  context: newTurnOutput(context.config.output),
});

/**
 * The `userPromptSubmit` hook let the prompt at the head of the queue through: it starts the
 * turn, with the note the hook added after it. A hook that failed is skipped (it fails open),
 * and the user is told.
 */
export const startCheckedTurn: ChartAction = (context, event) => {
  assertEvent(event, 'UserPromptSubmitDecision');
  const [prompt, ...rest] = context.queue;
  // A hook that failed said nothing to go by, a note included.
  const note = event.error === undefined ? event.context : undefined;
  const message =
    prompt === undefined || note === undefined
      ? (prompt ?? null)
      : withText(prompt, `[userPromptSubmit hook] ${note}`);
  return {
    context: { ...turnStarted(context, message), queue: rest },
    ...(event.error === undefined
      ? {}
      : {
          emit: [
            {
              type: 'DisplayError',
              message: `${event.error}; the prompt went on unchecked`,
              source: 'hook',
            },
          ],
        }),
  };
};

/** What a new turn starts with: its prompt in the transcript, no retries, nothing used yet. */
function turnStarted(
  context: AgentContext,
  prompt: Message | null,
): Pick<AgentContext, 'messages' | 'retries' | 'turn'> {
  return { messages: appended(context, prompt), retries: 0, turn: NEW_TURN };
}

/** The form of the answer the input's turn asks for: its own, or the configuration's. */
function turnOutputOf(context: AgentContext, event: UserInputEvent): Pick<AgentContext, 'output'> {
  return newTurnOutput(
    event.output === undefined ? context.config.output : resolveOutput(event.output),
  );
}

/** A turn starts with no answer yet, in the form its input or the configuration asks for. */
function newTurnOutput(form: ResolvedOutput | null): Pick<AgentContext, 'output'> {
  return { output: form === null ? null : { form, misses: 0, answer: null } };
}

/**
 * A limit ends the turn before the next model call (the calls of the last response are answered
 * already; input taken once the budget is spent is in the transcript), and the user is told which.
 */
export const stopAtLimit: ChartAction = (context) => ({
  emit: [
    {
      type: 'DisplayError',
      message: budgetSpent(context)
        ? describeBudget(context)
        : `Stopped: this turn made ${context.turn.usage.calls} model calls, the most maxTurns (${context.config.maxTurns}) allows; the last tool calls were answered. Send a message to go on.`,
    },
  ],
});

function describeBudget(context: AgentContext): string {
  return `Stopped: the session has spent ${usd(context.usage.costUsd ?? 0)} on model calls, its maxBudgetUsd (${usd(context.config.maxBudgetUsd ?? 0)}); the model was not called. Raise maxBudgetUsd to go on.`;
}

function usd(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}

/**
 * The model ended its response without the turn's answer (it wrote text and called no tool): it
 * is asked once for the answer in the required form.
 */
export const askForOutput: ChartAction = (context) => {
  const output = context.output;
  const content =
    output?.form.via === 'format'
      ? `Your final answer must be JSON in the required format${output.missed === undefined ? '' : ` (${output.missed})`}. Give it now, and nothing else.`
      : `Give your final answer now by calling the ${output?.form.name ?? ''} tool, with the answer as its input.`;
  return { context: { messages: appended(context, { role: 'user', content }) } };
};

/**
 * A turn that asks for a structured answer ends: with the answer, or saying that the model did
 * not give it in the required form though asked again. Nothing for a turn that asks none.
 */
export const endOutputTurn: ChartAction = (context) => {
  const { output } = context;
  if (output === null) return {};
  if (output.answer !== null) {
    return { emit: [{ type: 'OutputGiven', output: output.answer.value }] };
  }
  return {
    emit: [
      {
        type: 'DisplayError',
        message: `The model ended the turn without a valid answer from the ${output.form.name} tool, after being asked again; the turn has no output.`,
      },
    ],
  };
};

/** Input that arrives while the chart cannot start a turn waits for the current one to end. */
export const enqueueInput: ChartAction = (context, event) => {
  assertEvent(event, 'UserInput');
  return { context: { queue: context.queue.concat([event.message]) } };
};

/** The turn is over; queued input starts the next one at once instead. */
export const announceIdle: ChartAction = (context) =>
  context.queue.length === 0 ? { emit: [{ type: 'WaitForInput' }] } : {};

/** The agent stops for good, saying which queued input it never took. */
export const announceShutdown: ChartAction = (context) => ({
  context: { queue: [] },
  emit: [{ type: 'Shutdown', discardedInput: context.queue }],
});

export const setPermissionMode: ChartAction = (_context, event) => {
  assertEvent(event, 'SetPermissionMode');
  return { context: { permissionMode: event.mode } };
};

/**
 * The tools the model may call are replaced; the next request carries them. The config is a new
 * object: a snapshot never changes, and one config object may be shared by many agents.
 *
 * Nothing else changes, on purpose: calls the model already made keep their course. A call
 * running or approved goes on (its runner answers "unknown tool" if its tool is gone), and a
 * call waiting for approval keeps waiting: a person was asked about it, and a new tool list is
 * no answer to that (a mode change is one, which is why it re-checks waiting calls). What is
 * read of the specs later reads the new ones: the permission pass of the next response, whether
 * a successful call counts as mutating (the post-tools hook), and whether a call that was
 * running at a restart may run again.
 */
export const setTools: ChartAction = (context, event) => {
  assertEvent(event, 'SetTools');
  const config = {
    ...context.config,
    tools: event.tools,
    toolDefinitions: offeredToolDefinitions(
      event.tools,
      context.config.askUser,
      context.config.agents,
    ),
  };
  return { context: { config } };
};
