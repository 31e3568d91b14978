/**
 * The `llm` actor: streams one model request with the Anthropic SDK and answers the chart with
 * `LlmTextDelta`, `LlmToolCallDelta`, then `LlmCompleted` or `LlmError`. Stopping the actor
 * (leaving `CallingLlm` on an interrupt or a shutdown) aborts the HTTP request.
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  type AnyEventObject,
  type CallbackLogicFunction,
  type EventObject,
  fromCallback,
} from 'xstate';
import type { LlmActorInput } from '../machine/actorInputs.js';
import type { AgentEvent } from '../machine/types.js';
import type { FlushScheduler } from './deltaCoalescer.js';
import { closeDeltaCoalescer, openDeltaCoalescer } from './deltaChannel.js';
import type { InFlightWork } from './inFlightWork.js';
import { streamLlmResponse } from './llm/streamLlmResponse.js';

/**
 * Options of {@link createLlmActor}.
 *
 * @example
 * const options: LlmActorOptions = { client: () => new Anthropic({ maxRetries: 0 }) };
 */
export interface LlmActorOptions {
  /**
   * The SDK client, or a function that makes it on first use (so a missing API key becomes an
   * `auth` error of the first call rather than a throw at start-up). Build it with
   * `maxRetries: 0`: the chart owns retries.
   */
  client: Anthropic | (() => Anthropic);
  /**
   * Batch deltas (default true): per I/O tick, or as the agent's delta channel says when one is
   * bound (createAgent shows text at once and lets the chart catch up on demand). Turn off to
   * send every SSE delta to the chart as its own event.
   */
  coalesceDeltas?: boolean;
  /** How batches are scheduled when no delta channel is bound (default: `setImmediate`). */
  flushScheduler?: FlushScheduler;
  /** No stream event for this long is a `timeout` error (default 5 minutes). */
  idleTimeoutMs?: number;
  /** Where the actor registers its request, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
}

/**
 * Makes the `llm` actor for `agentMachine.provide({ actors: { llm } })`.
 *
 * @example
 * const llm = createLlmActor({ client: new Anthropic({ apiKey, maxRetries: 0 }) });
 * const machine = agentMachine.provide({ actors: { llm } });
 */
export function createLlmActor(options: LlmActorOptions) {
  return fromCallback<EventObject, LlmActorInput>(llmCallback(options));
}

/**
 * The body of the `llm` actor, for code that builds its own actor logic around it (for example
 * one machine shared by many agents).
 *
 * @example
 * const llm = fromCallback(llmCallback({ client }));
 */
export function llmCallback(
  options: LlmActorOptions,
): CallbackLogicFunction<EventObject, AnyEventObject, LlmActorInput> {
  let client: Anthropic | undefined =
    typeof options.client === 'function' ? undefined : options.client;
  const getClient = (): Anthropic => {
    client ??= (options.client as () => Anthropic)();
    return client;
  };

  return ({ input, sendBack, system }) => {
    const controller = new AbortController();
    const send = (event: AgentEvent) => {
      if (!controller.signal.aborted) sendBack(event);
    };
    const coalescer =
      options.coalesceDeltas === false
        ? null
        : openDeltaCoalescer(
            system,
            send,
            options.flushScheduler ? { schedule: options.flushScheduler } : {},
          );

    const work = (async () => {
      let sdk: Anthropic;
      try {
        sdk = getClient();
      } catch (error) {
        send({ type: 'LlmError', error: { kind: 'auth', message: messageOf(error) } });
        return;
      }
      const result = await streamLlmResponse({
        client: sdk,
        request: input.request,
        signal: controller.signal,
        ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
        onEvent: coalescer ? (event) => coalescer.push(event) : send,
      });
      if (result.ok) {
        coalescer?.finish();
        send({ type: 'LlmCompleted', response: result.response });
      } else {
        coalescer?.flush();
        if (!result.aborted) send({ type: 'LlmError', error: result.error });
      }
    })().catch((error: unknown) => {
      send({ type: 'LlmError', error: { kind: 'unknown', message: messageOf(error) } });
    });
    options.inFlight?.track(work);

    return () => {
      if (coalescer) closeDeltaCoalescer(system, coalescer);
      controller.abort(new Error('the model call was cancelled'));
    };
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
