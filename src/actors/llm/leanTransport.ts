/**
 * The lean transport: a Messages request built by the Anthropic SDK, sent over a keep-alive
 * `node:http`/`node:https` connection pool, and its event stream decoded straight from the
 * socket's bytes. It skips what a streamed event costs through `fetch`: web streams, a promise
 * per read and per event, and the SDK's objects around each one.
 */

import type { OutgoingHttpHeaders } from 'node:http';
import Anthropic, { type APIError, APIUserAbortError, type ClientOptions } from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AgentStatechartError, errorMessage } from '../../machine/index.js';
import { EventStreamDecoder } from './eventStreamDecoder.js';
import {
  type Connector,
  type Exchange,
  exchange,
  headersOf,
  readBody,
  readText,
} from './httpExchange.js';
import {
  type LlmEventStream,
  type LlmTransport,
  type OpenStreamOptions,
  sdkTransport,
} from './llmTransport.js';
import { messageStreamListener, parseJson } from './messageStreamEvents.js';

type RequestOptions = Parameters<Anthropic['buildRequest']>[0];
type BuiltRequest = Awaited<ReturnType<Anthropic['buildRequest']>>;

/**
 * The SDK client, with the two steps of its request path that are offered to subclasses made
 * callable: preparing the finished request, and making the error for an HTTP status. The lean
 * transport builds what the SDK would send with it, and fails as the SDK would fail.
 */
class SdkRequestClient extends Anthropic {
  async prepare(request: BuiltRequest['req'], url: string, options: RequestOptions) {
    await this.prepareRequest(request, { url, options });
  }

  statusError(status: number, body: unknown, message: string | undefined, headers: Headers) {
    return this.makeStatusError(status, body as object, message, headers);
  }
}

/**
 * Makes the lean transport for a client the package builds from `options` (the SDK's
 * `ClientOptions`: `apiKey` or `authToken`, `baseURL`, `timeout`, `defaultHeaders`,
 * `defaultQuery`, read from the environment as the SDK reads them). Each request is the one the
 * SDK builds, headers and body, and goes over a keep-alive connection pool of this transport's
 * own; HTTP errors are the SDK's own `APIError` subclasses, made as the SDK makes them, so
 * `classifyLlmError`, `Retry-After` and `request-id` read the same.
 *
 * It cannot honour what replaces or wraps `fetch` (`fetch`, `fetchOptions`, `middleware`),
 * credential providers (`credentials`, `config`, `profile`, or none of `apiKey`/`authToken` so
 * the SDK would look for a profile) or the SDK's OpenTelemetry spans (`openTelemetry`); options
 * asking for one of them are refused with `INVALID_OPTION` (the SDK's own streaming serves them,
 * see `createAgent`'s `transport`). A proxy set for `fetch` (undici's `setGlobalDispatcher`,
 * `NODE_USE_ENV_PROXY`) is not seen either. A redirect is left to the SDK, which follows it.
 *
 * @example
 * const transport = createLeanTransport({ apiKey: process.env.ANTHROPIC_API_KEY });
 * const result = await streamLlmResponse({ client: transport, request });
 */
export function createLeanTransport(options: ClientOptions = {}): LlmTransport {
  // Checked before the SDK's constructor, which refuses some of these options with its own words.
  const obstacle = leanTransportObstacle(options);
  if (obstacle !== undefined) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `the lean transport cannot honour ${obstacle}: use transport 'sdk' (or 'auto', which picks it for these options)`,
    );
  }
  const client = new SdkRequestClient({ ...options, maxRetries: 0 });
  if (!hasStaticCredential(client, options)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      "the lean transport needs an apiKey or authToken (or ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN): credentials from a profile are the SDK's to resolve, with transport 'sdk' or 'auto'",
    );
  }
  return new LeanTransport(client);
}

/**
 * The model client `transport: 'auto'` picks for `options`: the lean transport where it can
 * honour them all (see {@link createLeanTransport}), else an SDK client built from them. An SDK
 * client that logs requests (`logLevel` or `ANTHROPIC_LOG` at `info` or `debug`) or a process
 * with `NODE_USE_ENV_PROXY` set keeps the SDK too, so its logs and proxy apply.
 *
 * @example
 * const client = autoLlmClient({ apiKey: process.env.ANTHROPIC_API_KEY }); // the lean transport
 * const sdk = autoLlmClient({ fetch: myFetch }); // an Anthropic client
 */
export function autoLlmClient(options: ClientOptions = {}): Anthropic | LlmTransport {
  const client = new SdkRequestClient({ ...options, maxRetries: 0 });
  const lean =
    leanTransportObstacle(options) === undefined &&
    hasStaticCredential(client, options) &&
    client.logLevel !== 'info' &&
    client.logLevel !== 'debug' &&
    !process.env.NODE_USE_ENV_PROXY;
  return lean ? new LeanTransport(client) : client;
}

/**
 * What in `options` the lean transport cannot honour, named for a message; `undefined` when
 * nothing.
 *
 * @example
 * leanTransportObstacle({ fetch: myFetch }); // 'a custom fetch'
 */
export function leanTransportObstacle(options: ClientOptions): string | undefined {
  if (options.fetch != null) return 'a custom fetch';
  if (options.fetchOptions != null) return 'fetchOptions';
  if (options.middleware != null && options.middleware.length > 0) return 'middleware';
  if (options.credentials != null) return 'a credentials provider';
  if (options.config != null) return 'a credentials config';
  if (options.profile != null) return 'a profile';
  if (options.openTelemetry != null && options.openTelemetry !== false) {
    return "the SDK's OpenTelemetry spans";
  }
  return undefined;
}

/** An API key (a string or a function) or an auth token, given or from the environment. */
function hasStaticCredential(client: Anthropic, options: ClientOptions): boolean {
  return (
    client.apiKey !== null || client.authToken !== null || typeof options.apiKey === 'function'
  );
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

class LeanTransport implements LlmTransport {
  private readonly client: SdkRequestClient;
  /**
   * One connector per protocol, made on its first request: `node:http` and `node:https` load
   * then, so an agent that never calls the model does not load them.
   */
  private readonly connectors = new Map<string, Promise<Connector>>();

  constructor(client: SdkRequestClient) {
    this.client = client;
  }

  async openMessageStream(
    params: MessageCreateParamsStreaming,
    signal: AbortSignal,
    streamOptions?: OpenStreamOptions,
  ): Promise<LlmEventStream> {
    if (signal.aborted) throw new APIUserAbortError();
    const options: RequestOptions = { method: 'post', path: '/v1/messages', body: params };
    if (streamOptions?.headers !== undefined) options.headers = streamOptions.headers;
    const { req, url, timeout } = await this.client.buildRequest(options);
    await this.client.prepare(req, url, options);
    // Anything but the JSON text the SDK builds for a Messages request is the SDK's to send.
    if (typeof req.body !== 'string') {
      return sdkTransport(this.client).openMessageStream(params, signal, streamOptions);
    }
    const target = new URL(url);
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of new Headers(req.headers)) headers[name] = value;
    headers['content-length'] = Buffer.byteLength(req.body);
    const connector = await this.connector(target.protocol);
    const call = { url: target, headers, body: req.body, timeoutMs: timeout };
    const opened = await exchange(connector, call, signal);
    const status = opened.response.statusCode ?? 0;
    if (status >= 200 && status < 300) return eventStream(opened);
    if (REDIRECT_STATUSES.has(status) && opened.response.headers.location !== undefined) {
      // The server took nothing in; the SDK's fetch follows redirects, so the SDK sends it.
      opened.request.destroy();
      return sdkTransport(this.client).openMessageStream(params, signal, streamOptions);
    }
    throw await statusError(this.client, status, opened);
  }

  private connector(protocol: string): Promise<Connector> {
    let found = this.connectors.get(protocol);
    if (found === undefined) {
      found =
        protocol === 'https:'
          ? import('node:https').then(({ request, Agent }) => ({
              request,
              agent: new Agent({ keepAlive: true }),
            }))
          : import('node:http').then(({ request, Agent }) => ({
              request,
              agent: new Agent({ keepAlive: true }),
            }));
      this.connectors.set(protocol, found);
    }
    return found;
  }
}

function eventStream(opened: Exchange): LlmEventStream {
  return {
    async read(onEvent) {
      let headers: Headers | undefined;
      const decoder = new EventStreamDecoder(
        messageStreamListener(onEvent, () => (headers ??= headersOf(opened.response))),
      );
      await readBody(opened, (chunk) => decoder.push(chunk));
      decoder.end();
    },
  };
}

/** The error for an HTTP error status, made from its body as the SDK makes it. */
async function statusError(
  client: SdkRequestClient,
  status: number,
  opened: Exchange,
): Promise<APIError> {
  let text: string;
  try {
    text = await readText(opened);
  } catch (error) {
    text = errorMessage(error);
  }
  const json = parseJson(text);
  return client.statusError(status, json, json ? undefined : text, headersOf(opened.response));
}
