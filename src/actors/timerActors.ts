/**
 * The chart's timers, as invoked actors whose delay is their input: the chart reads no clock,
 * and a restored agent restarts a wait by starting the actor again.
 *
 * - `retryTimer` waits out the backoff in `Error`, then sends `RetryTimeoutFired`;
 * - `toolGraceTimer` gives the tool calls an interrupt aborted time to report how they ended,
 *   then sends `ToolGraceExpired`.
 */
import { type EventObject, fromCallback } from 'xstate';
import type {
  BeforeEffect,
  RetryTimeoutFiredEvent,
  RetryTimerInput,
  ToolGraceExpiredEvent,
  ToolGraceTimerInput,
} from '../machine/index.js';

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

/**
 * Options of the `retryTimer` actor.
 *
 * @example
 * const options: RetryTimerActorOptions = { beforeStart: (start) => session.started(start) };
 */
export interface RetryTimerActorOptions extends TimerActorOptions {
  /**
   * Awaited before the wait starts (a durable session records when the backoff began, so a
   * restart waits only for what is left of it). The wait starts anyway if it rejects.
   */
  beforeStart?: BeforeEffect;
}

function timerActor<Input extends { delayMs: number }>(
  event: RetryTimeoutFiredEvent | ToolGraceExpiredEvent,
  options: TimerActorOptions,
  before?: (input: Input) => Promise<void>,
) {
  const scale = options.scale ?? 1;
  return fromCallback<EventObject, Input>(({ input, sendBack }) => {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const start = () => {
      if (!stopped) timer = setTimeout(() => sendBack(event), Math.max(0, input.delayMs * scale));
    };
    if (before === undefined) start();
    // A backoff that could not be recorded is still waited: the turn must not stall on it.
    else void before(input).then(start, start);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  });
}

/**
 * Makes the `retryTimer` actor.
 *
 * @example
 * agentMachine.provide({ actors: { retryTimer: createRetryTimerActor() } });
 */
export function createRetryTimerActor(options: RetryTimerActorOptions = {}) {
  const { beforeStart } = options;
  return timerActor<RetryTimerInput>(
    { type: 'RetryTimeoutFired' },
    options,
    beforeStart && ((input) => beforeStart({ effect: 'retry', delayMs: input.delayMs })),
  );
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
