/**
 * Shared by the tests of the local Messages API server: servers closed after each test, plain
 * `fetch` requests with the headers the API requires, and an SSE parser independent of the code
 * under test.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach } from 'vitest';
import {
  type MessagesApiServer,
  type MessagesApiServerOptions,
  startMessagesApiServer,
} from '../../src/testing/index.js';

/** Registers an `afterEach` that closes every server the returned function started. */
export function serversClosedAfterEach(): (
  options: MessagesApiServerOptions,
) => Promise<MessagesApiServer> {
  const running: MessagesApiServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  return async (options) => {
    const server = await startMessagesApiServer(options);
    running.push(server);
    return server;
  };
}

/** The headers every Messages API request needs: a key and a version. */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'x-api-key': 'test',
  'anthropic-version': '2023-06-01',
};

export const streamingBody = {
  model: 'claude-test-model',
  max_tokens: 256,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};

/** POSTs `payload` (JSON unless a string) with {@link API_HEADERS}, or the `headers` given. */
export function post(
  server: MessagesApiServer,
  payload: unknown = streamingBody,
  options: { path?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${server.baseURL}${options.path ?? '/v1/messages'}`, {
    method: 'POST',
    headers: options.headers ?? API_HEADERS,
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

/**
 * The official SDK pointed at `server`, without retries so every answer is seen once.
 * `defaultHeaders` may remove a header the SDK would send, by giving it `null`.
 */
export function sdkClient(
  server: MessagesApiServer,
  options: { apiKey?: string; defaultHeaders?: Record<string, string | null> } = {},
): Anthropic {
  return new Anthropic({
    baseURL: server.baseURL,
    apiKey: options.apiKey ?? 'test',
    maxRetries: 0,
    defaultHeaders: options.defaultHeaders ?? {},
  });
}

export interface ParsedEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/** A deliberately plain SSE parser, independent of the code under test. */
export function parseSse(text: string): ParsedEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data =
        lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? 'null';
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** The deltas of content block `index`, in order. */
export function deltas(events: ParsedEvent[], index: number): Record<string, unknown>[] {
  return events
    .filter((e) => e.event === 'content_block_delta' && e.data.index === index)
    .map((e) => e.data.delta as Record<string, unknown>);
}
