/**
 * One streamed model call as a plain async function: request out, deltas forwarded as they
 * arrive, and a result that is always data — never a throw, never a hang.
 */

import type Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { errorMessage, type LlmError, type LlmRequest } from '../../machine/index.js';
import { classifyLlmError } from './classifyLlmError.js';
import {
  isLlmTransport,
  type LlmEventStream,
  type LlmTransport,
  sdkTransport,
} from './llmTransport.js';
import {
  type LlmStreamDelta,
  MessageAccumulator,
  type StreamedLlmResponse,
} from './messageAccumulator.js';
import { checkOutputAnswer } from './checkOutputAnswer.js';
import { toMessageCreateParams, toRequestHeaders } from './toMessageCreateParams.js';

/**
 * How long a stream may go without any event before it is abandoned as a `timeout`: five
 * minutes. The SDK's own `timeout` only covers waiting for the response headers, and the SDK
 * hides `ping` events, so this has to allow for long server-side tool runs.
 *
 * @example
 * await streamLlmResponse({ client, request, idleTimeoutMs: DEFAULT_STREAM_IDLE_TIMEOUT_MS * 2 });
 */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/**
 * What {@link streamLlmResponse} needs.
 *
 * @example
 * const options: StreamLlmResponseOptions = {
 *   client: new Anthropic({ maxRetries: 0 }),
 *   request: { model: 'claude-sonnet-5-5', maxTokens: 4096, messages: [{ role: 'user', content: 'hi' }] },
 *   signal: controller.signal,
 *   onEvent: (event) => actor.send(event),
 * };
 */
export interface StreamLlmResponseOptions {
  /**
   * The SDK client, or a transport (`createLeanTransport`). Build a client with `maxRetries: 0`:
   * the chart owns retries (backoff, attempt counting, `Retry-After`), and SDK retries would
   * multiply them unseen. Each call also passes `maxRetries: 0` itself, so a client built
   * otherwise still makes a single attempt.
   */
  client: Anthropic | LlmTransport;
  request: LlmRequest;
  /** Aborting it ends the call promptly with `{ ok: false, aborted: true }`. */
  signal?: AbortSignal;
  /**
   * Receives each delta as it arrives, unbatched: `LlmTextDelta` for text, `LlmToolCallDelta` for
   * each piece of a tool call's input (the first one, with an empty fragment, announces the call
   * as soon as its block starts). Thinking and server-tool deltas are not forwarded. A listener
   * that throws ends the call with an `unknown` error.
   */
  onEvent?: (event: LlmStreamDelta) => void;
  /** See {@link DEFAULT_STREAM_IDLE_TIMEOUT_MS}. 0 or `Infinity` turns the check off. */
  idleTimeoutMs?: number;
}

/**
 * How a call ended: the complete response, or an error (`aborted` tells a deliberate abort from
 * a failure, so the caller does not retry what it cancelled).
 *
 * @example
 * const result = await streamLlmResponse(options);
 * if (result.ok) send({ type: 'LlmCompleted', response: result.response });
 * else if (!result.aborted) send({ type: 'LlmError', error: result.error });
 */
export type LlmStreamResult =
  { ok: true; response: StreamedLlmResponse } | { ok: false; error: LlmError; aborted: boolean };

/** Why the call was stopped from our side, if it was. */
type Halt = { by: 'caller'; reason: unknown } | { by: 'idle'; afterMs: number };

/**
 * Streams one model response, with the SDK's `client.messages.create({ ..., stream: true })` or
 * over the transport given, and reduces the raw events to the final assistant message (see
 * {@link MessageAccumulator} for the order checks).
 *
 * Every outcome is a resolved {@link LlmStreamResult}:
 * - HTTP errors, connection failures and `error` events are classified by {@link classifyLlmError};
 * - a stream that breaks off before `message_stop` (connection dropped or response ended) is a
 *   `network` error; a stream that breaks the protocol is a `server` error;
 * - no event for `idleTimeoutMs` is a `timeout`;
 * - an abort through `signal` resolves at once with `aborted: true`, whatever the SDK is doing.
 *
 * @example
 * const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, maxRetries: 0 });
 * const result = await streamLlmResponse({
 *   client,
 *   request: { model: 'claude-sonnet-5-5', maxTokens: 4096, messages: [{ role: 'user', content: 'hi' }] },
 *   onEvent: (event) => {
 *     if (event.type === 'LlmTextDelta') process.stdout.write(event.content);
 *   },
 * });
 * if (result.ok) console.log(result.response.stopReason);
 * else console.error(result.error.kind, result.error.message);
 */
export async function streamLlmResponse(
  options: StreamLlmResponseOptions,
): Promise<LlmStreamResult> {
  const { signal } = options;
  if (signal?.aborted) return abortedResult(signal.reason);
  const controller = new AbortController();
  let resolveHalt: (halt: Halt) => void = () => {};
  const halted = new Promise<Halt>((resolve) => {
    resolveHalt = resolve;
  });
  const halt = (reason: Halt) => {
    resolveHalt(reason);
    controller.abort();
  };
  const onCallerAbort = () => halt({ by: 'caller', reason: signal?.reason });
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const idle = idleWatch(options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS, (afterMs) =>
    halt({ by: 'idle', afterMs }),
  );
  const forward = (delta: LlmStreamDelta) => options.onEvent?.(delta);
  try {
    const { client } = options;
    const transport = isLlmTransport(client) ? client : sdkTransport(client);
    const result = await Promise.race([
      consume(transport, options.request, controller, idle.touch, forward),
      halted.then(haltResult),
    ]);
    return result;
  } catch (error) {
    // consume() catches everything it awaits; this only guards against a defect in this module.
    return { ok: false, aborted: false, error: classifyLlmError(error) };
  } finally {
    idle.stop();
    signal?.removeEventListener('abort', onCallerAbort);
    controller.abort();
  }
}

async function consume(
  transport: LlmTransport,
  request: LlmRequest,
  controller: AbortController,
  touch: () => void,
  forward: (delta: LlmStreamDelta) => void,
): Promise<LlmStreamResult> {
  const { signal } = controller;
  let stream: LlmEventStream;
  try {
    const headers = toRequestHeaders(request);
    stream = await transport.openMessageStream(
      toMessageCreateParams(request),
      signal,
      headers === undefined ? undefined : { headers },
    );
  } catch (error) {
    return failed(classifyLlmError(error));
  }
  const accumulator = new MessageAccumulator();
  // The first event that ends the call; aborting stops the transport.
  let failure: LlmError | undefined;
  const onEvent = (event: RawMessageStreamEvent) => {
    // A transport may still hand over an event it decoded when the call had ended (an abort,
    // a failure, the caller's onEvent gone): nothing more counts, or reaches the caller.
    if (failure !== undefined || signal.aborted) return;
    touch();
    const step = accumulator.apply(event);
    if (!step.ok) failure = step.error;
    else if (step.delta !== undefined) {
      try {
        forward(step.delta);
      } catch (error) {
        failure = {
          kind: 'unknown',
          message: `the onEvent listener threw: ${errorMessage(error)}`,
        };
      }
    }
    if (failure !== undefined) controller.abort();
  };
  try {
    await stream.read(onEvent);
  } catch (error) {
    return failed(failure ?? classifyStreamFailure(error));
  }
  if (failure !== undefined) return failed(failure);
  const outcome = accumulator.finish();
  if (!outcome.ok) return failed(outcome.error);
  return { ok: true, response: checkOutputAnswer(outcome.response, request.output) };
}

/** A failure while reading the body: whatever is not recognisably something else is a cut stream. */
function classifyStreamFailure(error: unknown): LlmError {
  if (error instanceof SyntaxError) {
    return {
      kind: 'server',
      message: `the response stream carried an event that is not JSON: ${error.message}`,
    };
  }
  const classified = classifyLlmError(error);
  if (classified.kind !== 'unknown') return classified;
  return {
    ...classified,
    kind: 'network',
    message: `the response stream failed: ${classified.message}`,
  };
}

function haltResult(halt: Halt): LlmStreamResult {
  if (halt.by === 'caller') return abortedResult(halt.reason);
  return failed({
    kind: 'timeout',
    message: `no stream event arrived for ${halt.afterMs} ms, so the request was abandoned`,
  });
}

function abortedResult(reason: unknown): LlmStreamResult {
  const detail = describeReason(reason);
  return {
    ok: false,
    aborted: true,
    error: {
      kind: 'unknown',
      message:
        detail === '' ? 'the model call was aborted' : `the model call was aborted: ${detail}`,
    },
  };
}

function describeReason(reason: unknown): string {
  if (reason === undefined) return '';
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  try {
    return JSON.stringify(reason) ?? '';
  } catch {
    return '';
  }
}

function failed(error: LlmError): LlmStreamResult {
  return { ok: false, aborted: false, error };
}

function idleWatch(
  timeoutMs: number,
  onIdle: (afterMs: number) => void,
): { touch: () => void; stop: () => void } {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return { touch: () => {}, stop: () => {} };
  // One timer for the whole stream, pushed back by each event in place; once cleared, `refresh`
  // leaves it cleared.
  const timer = setTimeout(() => onIdle(timeoutMs), timeoutMs);
  return { touch: () => void timer.refresh(), stop: () => clearTimeout(timer) };
}
