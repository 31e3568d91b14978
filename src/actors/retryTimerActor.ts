/**
 * The `retryTimer` actor: waits out the backoff in `Error`, then sends `RetryTimeoutFired`. The
 * delay is its input (the chart reads no clock), so a restored agent restarts the wait.
 */
import { type EventObject, fromCallback } from 'xstate';
import type { RetryTimerInput } from '../machine/actorInputs.js';
import type { AgentEvent } from '../machine/types.js';

/**
 * Makes the `retryTimer` actor. `scale` multiplies every delay (tests and demos use a small one).
 *
 * @example
 * agentMachine.provide({ actors: { retryTimer: createRetryTimerActor() } });
 */
export function createRetryTimerActor(options: { scale?: number } = {}) {
  const scale = options.scale ?? 1;
  return fromCallback<EventObject, RetryTimerInput>(({ input, sendBack }) => {
    const timer = setTimeout(
      () => sendBack({ type: 'RetryTimeoutFired' } satisfies AgentEvent),
      Math.max(0, input.delayMs * scale),
    );
    return () => clearTimeout(timer);
  });
}
