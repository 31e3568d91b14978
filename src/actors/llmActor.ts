/**
 * The `llm` actor: streams one model request (through the Anthropic SDK or the lean transport)
 * and answers the chart with `LlmStarted` as the request goes out, `LlmTextDelta`,
 * `LlmToolCallDelta` (batched per display frame), then `LlmCompleted` or `LlmError`; every
 * failure, its own included, is an `LlmError`. Stopping the actor (leaving `CallingLlm` on an
 * interrupt or a shutdown) aborts the
 * HTTP request.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { type EventObject, fromCallback } from 'xstate';
import {
  type AgentEvent,
  AgentStatechartError,
  type BeforeEffect,
  errorMessage,
  type LlmActorInput,
} from '../machine/index.js';
import { DeltaCoalescer } from './deltaCoalescer.js';
import type { InFlightWork } from './inFlightWork.js';
import type { LlmTransport } from './llm/llmTransport.js';
import { streamLlmResponse } from './llm/streamLlmResponse.js';

/**
 * Options of {@link createLlmActor}.
 *
 * @example
 * const options: LlmActorOptions = { client: () => new Anthropic({ maxRetries: 0 }) };
 */
export interface LlmActorOptions {
  /**
   * The SDK client or a transport (`createLeanTransport`), or a function that makes one on first
   * use (so a missing API key becomes an `auth` error of the first call rather than a throw at
   * start-up). Build a client with `maxRetries: 0`: the chart owns retries.
   */
  client: Anthropic | LlmTransport | (() => Anthropic | LlmTransport);
  /**
   * Batch streamed deltas into one event per run of text (default true). Turn off to send every
   * SSE delta to the chart as its own event.
   */
  coalesceDeltas?: boolean;
  /**
   * At most one batch of deltas goes to the chart per this many milliseconds (default 16, one
   * display frame; a delta after a quiet window goes at once); 0: once per turn of the event loop.
   */
  deltaWindowMs?: number;
  /** No stream event for this long is a `timeout` error (default 5 minutes). */
  idleTimeoutMs?: number;
  /** Where the actor registers its request, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
  /** Awaited before the request is sent (a durable session records the call first). */
  beforeStart?: BeforeEffect;
}

/**
 * Makes the `llm` actor for `agentMachine.provide({ actors: { llm } })`.
 *
 * @example
 * const llm = createLlmActor({ client: new Anthropic({ apiKey, maxRetries: 0 }) });
 * const machine = agentMachine.provide({ actors: { llm } });
 */
export function createLlmActor(options: LlmActorOptions) {
  let client: Anthropic | LlmTransport | undefined =
    typeof options.client === 'function' ? undefined : options.client;
  const getClient = (): Anthropic | LlmTransport => {
    client ??= (options.client as () => Anthropic | LlmTransport)();
    return client;
  };

  return fromCallback<EventObject, LlmActorInput>(({ input, sendBack }) => {
    const controller = new AbortController();
    const send = (event: AgentEvent) => {
      if (!controller.signal.aborted) sendBack(event);
    };
    const coalescer =
      options.coalesceDeltas === false
        ? null
        : new DeltaCoalescer(send, { windowMs: options.deltaWindowMs });

    const work = (async () => {
      try {
        await options.beforeStart?.({ effect: 'llm' });
      } catch (error) {
        send({
          type: 'LlmError',
          error: { kind: 'unknown', message: `not sent: ${errorMessage(error)}` },
        });
        return;
      }
      if (controller.signal.aborted) return;
      // Whatever an earlier attempt of this call streamed (before a restart) starts over.
      send({ type: 'LlmStarted' });
      let model: Anthropic | LlmTransport;
      try {
        model = getClient();
      } catch (error) {
        send({ type: 'LlmError', error: { kind: 'auth', message: errorMessage(error) } });
        return;
      }
      const result = await streamLlmResponse({
        client: model,
        request: input.request,
        signal: controller.signal,
        ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
        onEvent: coalescer ? (event) => coalescer.push(event) : send,
      });
      coalescer?.flush();
      if (result.ok) send({ type: 'LlmCompleted', response: result.response });
      else if (!result.aborted) send({ type: 'LlmError', error: result.error });
    })().catch((error: unknown) => {
      send({ type: 'LlmError', error: { kind: 'unknown', message: errorMessage(error) } });
    });
    options.inFlight?.track(work);

    return () => {
      coalescer?.discard();
      controller.abort(new AgentStatechartError('CANCELLED', 'the model call was cancelled'));
    };
  });
}
