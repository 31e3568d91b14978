/**
 * The chart's timers, as invoked actors whose delay is their input: the chart reads no clock,
 * and a restored agent restarts a wait by starting the actor again.
 *
 * - `retryTimer` waits out the backoff in `Error`, then sends `RetryTimeoutFired`;
 * - `toolGraceTimer` gives the tool calls an interrupt aborted time to report how they ended,
 *   then sends `ToolGraceExpired`.
 */
import { type EventObject, fromCallback } from 'xstate';
import type { RetryTimerInput, ToolGraceTimerInput } from '../machine/actorInputs.js';
import type { RetryTimeoutFiredEvent, ToolGraceExpiredEvent } from '../machine/types.js';

/**
 * Options of the timer actors.
 *
 * @example
 * const options: TimerActorOptions = { scale: 0.01 }; // a hundred times faster, for tests
 */
export interface TimerActorOptions {
  /** Multiplies every delay (tests and demos use a small one). Default 1. */
  scale?: number;
}

function timerActor<Input extends { delayMs: number }>(
  event: RetryTimeoutFiredEvent | ToolGraceExpiredEvent,
  options: TimerActorOptions,
) {
  const scale = options.scale ?? 1;
  return fromCallback<EventObject, Input>(({ input, sendBack }) => {
    const timer = setTimeout(() => sendBack(event), Math.max(0, input.delayMs * scale));
    return () => clearTimeout(timer);
  });
}

/**
 * Makes the `retryTimer` actor.
 *
 * @example
 * agentMachine.provide({ actors: { retryTimer: createRetryTimerActor() } });
 */
export function createRetryTimerActor(options: TimerActorOptions = {}) {
  return timerActor<RetryTimerInput>({ type: 'RetryTimeoutFired' }, options);
}

/**
 * Makes the `toolGraceTimer` actor.
 *
 * @example
 * agentMachine.provide({ actors: { toolGraceTimer: createToolGraceTimerActor() } });
 */
export function createToolGraceTimerActor(options: TimerActorOptions = {}) {
  return timerActor<ToolGraceTimerInput>({ type: 'ToolGraceExpired' }, options);
}
