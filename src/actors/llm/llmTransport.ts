/**
 * How one streamed Messages request goes over the wire: the SDK's own streaming, or the lean
 * transport (see `createLeanTransport`). Both hand over the API's raw stream events; reducing them
 * to a response is the caller's.
 */

import type Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';

/**
 * A response whose events are being received.
 *
 * @example
 * const stream = await transport.openMessageStream(params, signal);
 * await stream.read((event) => accumulator.apply(event));
 */
export interface LlmEventStream {
  /**
   * Hands each event to `onEvent` as it arrives, in order, and resolves when the response has
   * ended; rejects with what broke it off (an `APIError` for an `error` event, a `SyntaxError`
   * for data that is not JSON, a transport error for a cut connection). To stop early, abort the
   * signal the stream was opened with. Call it once.
   */
  read(onEvent: (event: RawMessageStreamEvent) => void): Promise<void>;
}

/**
 * Sends streaming Messages requests.
 *
 * @example
 * const transport: LlmTransport = createLeanTransport({ apiKey: process.env.ANTHROPIC_API_KEY });
 * const result = await streamLlmResponse({ client: transport, request });
 */
export interface LlmTransport {
  /**
   * Sends the request and resolves once the response has started, with a stream of its events.
   * Rejects as the SDK's `messages.create` rejects: an `APIError` subclass for an HTTP error
   * status, `APIConnectionError` when no response came, `APIConnectionTimeoutError` when none
   * came within the client's `timeout`, `APIUserAbortError` when `signal` aborted first.
   * Aborting `signal` later breaks the response off.
   */
  openMessageStream(
    params: MessageCreateParamsStreaming,
    signal: AbortSignal,
    options?: OpenStreamOptions,
  ): Promise<LlmEventStream>;
}

/**
 * What a request carries besides its body: headers such as `anthropic-beta` (see
 * `toRequestHeaders`), sent with the SDK's own headers, winning over them.
 *
 * @example
 * const options: OpenStreamOptions = { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } };
 */
export interface OpenStreamOptions {
  headers?: Readonly<Record<string, string>>;
}

/**
 * The SDK's own streaming as an {@link LlmTransport}: `client.messages.create({ stream: true })`,
 * a single attempt (the chart owns retries).
 *
 * @example
 * const transport = sdkTransport(new Anthropic({ maxRetries: 0 }));
 */
export function sdkTransport(client: Anthropic): LlmTransport {
  return {
    async openMessageStream(params, signal, options) {
      const stream = await client.messages.create(params, {
        signal,
        maxRetries: 0,
        ...(options?.headers === undefined ? {} : { headers: options.headers }),
      });
      return {
        async read(onEvent) {
          for await (const event of stream) {
            onEvent(event);
            // Leaving the loop makes the SDK abort the request.
            if (signal.aborted) break;
          }
        },
      };
    },
  };
}

/**
 * Whether `client` is a transport rather than an SDK client.
 *
 * @example
 * const transport = isLlmTransport(client) ? client : sdkTransport(client);
 */
export function isLlmTransport(client: Anthropic | LlmTransport): client is LlmTransport {
  return typeof (client as Partial<LlmTransport>).openMessageStream === 'function';
}
