/**
 * The LLM side of the agent: one streamed model call as a plain async function, the error
 * classification the chart's retry rules rely on, and the request mapping.
 *
 * @example
 * import { streamLlmResponse } from './actors/llm/index.js';
 * const result = await streamLlmResponse({ client, request, signal, onEvent });
 */

export { classifyLlmError } from './classifyLlmError.js';
export {
  type AccumulatorOutcome,
  type AccumulatorStep,
  type LlmStreamDelta,
  MessageAccumulator,
  type StreamedLlmResponse,
} from './messageAccumulator.js';
export { type HeaderReader, retryAfterMs } from './retryAfter.js';
export {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type LlmStreamResult,
  type StreamLlmResponseOptions,
  streamLlmResponse,
} from './streamLlmResponse.js';
export { toMessageCreateParams } from './toMessageCreateParams.js';
