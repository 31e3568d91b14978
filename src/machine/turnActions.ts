/**
 * The chart's actions about turns: user input starting or queued for the next turn, the end of a
 * turn, the permission mode, and the final shutdown.
 */
import { assertEvent } from 'xstate';
import { appended, type ChartAction } from './chartStep.js';

/** The user's input starts a turn. */
export const startTurn: ChartAction = (context, event) => {
  assertEvent(event, 'UserInput');
  return { context: { messages: appended(context, event.message), retries: 0 } };
};

/** The oldest queued input starts the next turn. */
export const startQueuedTurn: ChartAction = (context) => {
  const [next, ...rest] = context.queue;
  return { context: { messages: appended(context, next ?? null), queue: rest, retries: 0 } };
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
