/**
 * The lean transport and the SDK's streaming, side by side against the local Messages API
 * server: the same request on the wire, the same deltas and response for every recorded stream
 * (written every way the format allows) and scripted reply, the same `LlmError` for every fault
 * the server can play, and the same SDK error objects, `request-id` included.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createLeanTransport } from '../../../src/actors/llm/leanTransport.js';
import type { LlmTransport } from '../../../src/actors/llm/llmTransport.js';
import {
  type LlmStreamResult,
  streamLlmResponse,
} from '../../../src/actors/llm/streamLlmResponse.js';
import { toMessageCreateParams } from '../../../src/actors/llm/toMessageCreateParams.js';
import type { LlmRequest, LlmStreamDelta } from '../../../src/machine/index.js';
import {
  httpError,
  internalServerError,
  type MessagesApiServer,
  overloaded,
  rateLimited,
  recordedStream,
  reply,
  type ScriptedTurn,
  unauthorized,
} from '../../../src/testing/index.js';
import { startMessagesApiServer } from '../../../src/testing/index.js';
import { request } from './harness.js';
import { chunksOf, splitsArb } from './chunkSplits.js';
import { RECORDED_STREAMS, streamVariants } from './recordedStreams.js';

const running: MessagesApiServer[] = [];
const plainServers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
  for (const server of plainServers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

type Transport = 'lean' | 'sdk';

function clientFor(transport: Transport, baseURL: string, options: { timeout?: number } = {}) {
  const clientOptions = { baseURL, apiKey: 'test', ...options };
  return transport === 'lean'
    ? createLeanTransport(clientOptions)
    : new Anthropic({ ...clientOptions, maxRetries: 0 });
}

interface Run {
  result: LlmStreamResult;
  deltas: LlmStreamDelta[];
  server: MessagesApiServer;
}

/** One call over `transport`, to a server of its own playing `script`. */
async function run(
  transport: Transport,
  script: ScriptedTurn[],
  options: {
    timeout?: number;
    idleTimeoutMs?: number;
    request?: LlmRequest;
    closed?: boolean;
  } = {},
): Promise<Run> {
  const server = await startMessagesApiServer({ script });
  running.push(server);
  if (options.closed === true) await server.close();
  const deltas: LlmStreamDelta[] = [];
  const result = await streamLlmResponse({
    client: clientFor(transport, server.baseURL, options),
    request: options.request ?? request,
    onEvent: (delta) => deltas.push(delta),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
  });
  return { result, deltas, server };
}

async function both(script: ScriptedTurn[], options: Parameters<typeof run>[2] = {}) {
  const [lean, sdk] = await Promise.all([
    run('lean', script, options),
    run('sdk', script, options),
  ]);
  return { lean, sdk };
}

/** Headers Node's `fetch` adds to every request on its own; the SDK does not set them. */
const FETCH_HEADERS = ['accept-encoding', 'accept-language', 'sec-fetch-mode'];

describe('the lean transport beside the SDK', () => {
  describe('sends the same request', () => {
    it('the same body and every header the SDK sets, with the same values', async () => {
      const full: LlmRequest = {
        ...request,
        system: 'You are a careful coding agent.',
        tools: [{ name: 'read_file', description: 'Read', input_schema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'grüße 🦆' }],
      };
      const script = [reply('one'), reply('two')];
      const lean = await startMessagesApiServer({ script });
      const sdk = await startMessagesApiServer({ script });
      running.push(lean, sdk);
      const leanClient = clientFor('lean', lean.baseURL);
      const sdkClient = clientFor('sdk', sdk.baseURL);
      for (let turn = 0; turn < 2; turn++) {
        expect((await streamLlmResponse({ client: leanClient, request: full })).ok).toBe(true);
        expect((await streamLlmResponse({ client: sdkClient, request: full })).ok).toBe(true);
      }
      expect(lean.requests.map((sent) => sent.body)).toEqual(sdk.requests.map((sent) => sent.body));
      for (let turn = 0; turn < 2; turn++) {
        const leanHeaders = { ...lean.requests[turn]!.headers };
        const sdkHeaders = { ...sdk.requests[turn]!.headers };
        for (const name of FETCH_HEADERS) delete sdkHeaders[name];
        delete leanHeaders.host;
        delete sdkHeaders.host;
        expect(leanHeaders).toEqual(sdkHeaders);
      }
      expect(lean.requests[0]!.headers['user-agent']).toMatch(/^Anthropic\/JS /);
      expect(lean.problems).toEqual([]);
    });

    it('with the configured headers, query and auth token', async () => {
      const options = {
        authToken: 'token-1',
        defaultHeaders: { 'anthropic-beta': 'beta-one,beta-two', 'x-team': 'agents' },
        defaultQuery: { tenant: 'acme' },
      };
      const script = [reply('ok')];
      const servers = [
        await startMessagesApiServer({ script }),
        await startMessagesApiServer({ script }),
      ];
      running.push(...servers);
      const [lean, sdk] = servers as [MessagesApiServer, MessagesApiServer];
      await streamLlmResponse({
        client: createLeanTransport({ baseURL: lean.baseURL, ...options }),
        request,
      });
      await streamLlmResponse({
        client: new Anthropic({ baseURL: sdk.baseURL, maxRetries: 0, ...options }),
        request,
      });
      const leanHeaders = lean.requests[0]!.headers;
      expect(leanHeaders.authorization).toBe('Bearer token-1');
      expect(leanHeaders['anthropic-beta']).toBe('beta-one,beta-two');
      expect(leanHeaders['x-team']).toBe('agents');
      for (const name of [
        'authorization',
        'anthropic-beta',
        'x-team',
        'anthropic-version',
        'user-agent',
      ]) {
        expect(leanHeaders[name]).toBe(sdk.requests[0]!.headers[name]);
      }
    });
  });

  describe('streams every recorded stream to the same deltas and response', () => {
    const cases = RECORDED_STREAMS.flatMap(({ name, sse }) =>
      streamVariants(sse).map(({ variant, sse: text }) => ({ name, variant, text })),
    );
    it.each(cases)('$name ($variant)', async ({ text }) => {
      const { lean, sdk } = await both([recordedStream(text)]);
      expect(lean.result).toEqual(sdk.result);
      expect(lean.deltas).toEqual(sdk.deltas);
      expect(lean.result.ok || lean.result.error.message).toBe(true);
    });

    it.each([
      [
        'text in many small deltas',
        reply('a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(20), {
          textChunkSize: 2,
        }),
      ],
      [
        'thinking, redacted thinking, text and two tool calls',
        reply(
          [
            { type: 'thinking', thinking: 'Two files to read.', signature: 'c2lnbmF0dXJl' },
            { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
            { type: 'text', text: 'Reading both — “carefully”.' },
            { type: 'tool_use', name: 'read_file', input: { path: 'a.txt', note: 'ünïcødé 🦆' } },
            { type: 'tool_use', name: 'read_file', input: { path: 'b.txt', range: [1, 2] } },
          ],
          { jsonChunkSize: 3 },
        ),
      ],
      [
        'a stop sequence and details',
        reply('The answer is', {
          stopSequence: '###',
          stopDetails: { type: 'refusal', category: 'cyber', explanation: null },
        }),
      ],
      ['events paced apart', reply('one two three four five', { eventDelayMs: 2 })],
    ])('%s', async (_name, turn) => {
      const { lean, sdk } = await both([turn]);
      expect(lean.result.ok).toBe(true);
      expect(lean.result).toEqual(sdk.result);
      expect(lean.deltas).toEqual(sdk.deltas);
    });
  });

  describe('streams every recorded stream split into writes anywhere to the same deltas and response', () => {
    it.each(RECORDED_STREAMS)('$name', async ({ sse }) => {
      const bytes = Buffer.from(sse, 'utf8');
      await fc.assert(
        fc.asyncProperty(splitsArb(bytes.length), async (splits) => {
          const server = await writingServer(chunksOf(bytes, splits));
          const lean = await callOnce(
            createLeanTransport({ baseURL: server.baseURL, apiKey: 'test' }),
          );
          const sdk = await callOnce(
            new Anthropic({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 }),
          );
          expect(lean).toEqual(sdk);
          expect(lean.result.ok).toBe(true);
        }),
        { numRuns: 8 },
      );
    });
  });

  describe('fails the same way', () => {
    it.each([
      ['429 with retry-after', rateLimited({ retryAfterSeconds: 2 })],
      [
        '429 with retry-after-ms',
        httpError(429, 'rate_limit_error', 'slow down', {
          'retry-after': '30',
          'retry-after-ms': '1500',
        }),
      ],
      ['529', overloaded()],
      ['500', internalServerError()],
      ['503', httpError(503, 'api_error', 'unavailable')],
      ['401', unauthorized()],
      ['403', httpError(403, 'permission_error', 'no')],
      ['400', httpError(400, 'invalid_request_error', 'messages: roles must alternate')],
      ['404', httpError(404, 'not_found_error', 'model: claude-nothing')],
      ['413', httpError(413, 'request_too_large', 'too large')],
      [
        'an error event mid-stream (overloaded)',
        reply('Hello there', { cut: { afterEvents: 4, by: 'error_event' } }),
      ],
      [
        'an error event mid-stream (api_error)',
        reply('Hello', {
          cut: { afterEvents: 2, by: 'error_event', errorType: 'api_error', message: 'boom' },
        }),
      ],
      [
        'an error event before any other',
        reply('Hello', {
          cut: {
            afterEvents: 0,
            by: 'error_event',
            errorType: 'rate_limit_error',
            message: 'slow',
          },
        }),
      ],
      [
        'a response ended before message_stop',
        reply('Hello there', { cut: { afterEvents: 6, by: 'end_response' } }),
      ],
      [
        'a response ended before any event',
        reply('Hello there', { cut: { afterEvents: 0, by: 'end_response' } }),
      ],
    ])('%s', async (_name, turn) => {
      const { lean, sdk } = await both([turn]);
      expect(lean.result.ok).toBe(false);
      expect(lean.result).toEqual(sdk.result);
      expect(lean.deltas).toEqual(sdk.deltas);
    });

    it('a script that ran out (a 500 the server makes itself)', async () => {
      const { lean, sdk } = await both([]);
      expect(lean.result).toEqual(sdk.result);
    });

    it('a stream silent for longer than idleTimeoutMs', async () => {
      const { lean, sdk } = await both([reply('slow words here', { eventDelayMs: 10_000 })], {
        idleTimeoutMs: 150,
      });
      expect(!lean.result.ok && lean.result.error.kind).toBe('timeout');
      expect(lean.result).toEqual(sdk.result);
      expect(lean.deltas).toEqual(sdk.deltas);
    });

    it("the client's own timeout while waiting for the response", async () => {
      const { lean, sdk } = await both([reply('late', { responseDelayMs: 2_000 })], {
        timeout: 100,
      });
      expect(!lean.result.ok && lean.result.error.kind).toBe('timeout');
      expect(lean.result).toEqual(sdk.result);
    });

    it('a connection dropped mid-stream: a network error, after the same deltas', async () => {
      const { lean, sdk } = await both([
        reply('one two three four five six', {
          eventDelayMs: 5,
          cut: { afterEvents: 5, by: 'destroy_connection' },
        }),
      ]);
      expect(lean.deltas).toEqual(sdk.deltas);
      expect(lean.deltas.length).toBeGreaterThan(0);
      // Each names the cut in its own transport's words.
      expect(kindAndStatus(lean.result)).toEqual(kindAndStatus(sdk.result));
      expect(kindAndStatus(lean.result)).toEqual({
        kind: 'network',
        status: undefined,
        retryAfterMs: undefined,
      });
    });

    it('a refused connection: a network error saying "Connection error."', async () => {
      const { lean, sdk } = await both([], { closed: true });
      expect(kindAndStatus(lean.result)).toEqual(kindAndStatus(sdk.result));
      expect(!lean.result.ok && lean.result.error.message).toMatch(
        /^Connection error\. \(cause: .*ECONNREFUSED/,
      );
      expect(!sdk.result.ok && sdk.result.error.message).toMatch(
        /^Connection error\. \(cause: .*ECONNREFUSED/,
      );
    });
  });

  describe('rejects with the SDK error the SDK would throw', () => {
    async function rejection(transport: LlmTransport): Promise<unknown> {
      try {
        await transport.openMessageStream(
          toMessageCreateParams(request),
          new AbortController().signal,
        );
      } catch (error) {
        return error;
      }
      throw new Error('expected the request to fail');
    }

    it.each([
      ['429', rateLimited({ retryAfterSeconds: 3 })],
      ['529', overloaded()],
      ['500', internalServerError()],
      ['401', unauthorized()],
      ['400', httpError(400, 'invalid_request_error', 'bad')],
    ])('for a %s: same class, status, body, headers and request id', async (_name, turn) => {
      const [lean, sdk] = [
        await startMessagesApiServer({ script: [turn] }),
        await startMessagesApiServer({ script: [turn] }),
      ];
      running.push(lean, sdk);
      const fromLean = await rejection(
        createLeanTransport({ baseURL: lean.baseURL, apiKey: 'test' }),
      );
      let fromSdk: unknown;
      try {
        await new Anthropic({
          baseURL: sdk.baseURL,
          apiKey: 'test',
          maxRetries: 0,
        }).messages.create(toMessageCreateParams(request));
      } catch (error) {
        fromSdk = error;
      }
      expect(fromLean).toBeInstanceOf(Anthropic.APIError);
      expect(fromSdk).toBeInstanceOf(Anthropic.APIError);
      const describeError = (error: unknown) => {
        const apiError = error as InstanceType<typeof Anthropic.APIError>;
        return {
          class: apiError.constructor.name,
          message: apiError.message,
          status: apiError.status,
          error: apiError.error,
          type: apiError.type,
          requestID: apiError.requestID,
          retryAfter: apiError.headers?.get('retry-after'),
          contentType: apiError.headers?.get('content-type'),
        };
      };
      expect(describeError(fromLean)).toEqual(describeError(fromSdk));
      expect((fromLean as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_test_/);
    });
  });
});

function kindAndStatus(result: LlmStreamResult) {
  if (result.ok) throw new Error('expected a failure');
  return {
    kind: result.error.kind,
    status: result.error.status,
    retryAfterMs: result.error.retryAfterMs,
  };
}

/**
 * A plain HTTP server that answers every request with `chunks`, each written on its own with a
 * turn of the event loop between, so that the client mostly reads them as they were cut.
 */
async function writingServer(chunks: readonly Uint8Array[]): Promise<{ baseURL: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      res.socket?.setNoDelay(true);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void (async () => {
        for (const chunk of chunks) {
          res.write(chunk);
          await new Promise((resolve) => setImmediate(resolve));
        }
        res.end();
      })();
    });
  });
  plainServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function callOnce(client: Anthropic | LlmTransport) {
  const deltas: LlmStreamDelta[] = [];
  const result = await streamLlmResponse({
    client,
    request,
    onEvent: (delta) => deltas.push(delta),
  });
  return { result, deltas };
}
