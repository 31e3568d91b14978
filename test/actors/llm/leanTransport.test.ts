/**
 * What only the lean transport does, against plain HTTP servers: keeping its connection alive,
 * replacing a pooled connection the server dropped, reading what the local Messages API server
 * never sends (a compressed stream, an error page that is not JSON, a redirect) as the SDK reads
 * it, and refusing options it cannot honour.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  autoLlmClient,
  createLeanTransport,
  leanTransportObstacle,
} from '../../../src/actors/llm/leanTransport.js';
import { isLlmTransport } from '../../../src/actors/llm/llmTransport.js';
import { streamLlmResponse } from '../../../src/actors/llm/streamLlmResponse.js';
import { AgentStatechartError } from '../../../src/machine/agentStatechartError.js';
import {
  reply,
  startMessagesApiServer,
  type MessagesApiServer,
} from '../../../src/testing/index.js';
import { fixture, request, responseOf } from './harness.js';

const servers: Server[] = [];
const apiServers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await Promise.all(apiServers.splice(0).map((server) => server.close()));
});

/** A plain HTTP server on 127.0.0.1 answering with `handle`, counting its connections. */
async function plainServer(
  handle: (req: IncomingMessage, res: ServerResponse, index: number) => void,
): Promise<{ baseURL: string; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => handle(req, res, requests++));
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => requests,
  };
}

function codeOf(act: () => unknown): string | undefined {
  try {
    act();
  } catch (error) {
    return error instanceof AgentStatechartError ? error.code : undefined;
  }
  return undefined;
}

const lean = (baseURL: string) => createLeanTransport({ baseURL, apiKey: 'test' });
const sdk = (baseURL: string) => new Anthropic({ baseURL, apiKey: 'test', maxRetries: 0 });

describe('the lean transport', () => {
  it('sends one call after another over the same connection', async () => {
    const sse = await fixture('basic_response.sse');
    const server = await plainServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    });
    const transport = lean(server.baseURL);
    for (let call = 0; call < 3; call++) {
      responseOf(await streamLlmResponse({ client: transport, request }));
    }
    expect(server.requests()).toBe(3);
    expect(server.connections()).toBe(1);
  });

  it('sends the call again on a new connection when the server dropped the pooled one', async () => {
    const sse = await fixture('basic_response.sse');
    const server = await plainServer((req, res, index) => {
      // The second request finds its connection gone, as when an idle one times out on the
      // server's side just as the call goes out.
      if (index === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    });
    const transport = lean(server.baseURL);
    responseOf(await streamLlmResponse({ client: transport, request }));
    const second = responseOf(await streamLlmResponse({ client: transport, request }));
    expect(second.message.content).toEqual([{ type: 'text', text: 'Hello there!' }]);
    expect(server.requests()).toBe(3);
    expect(server.connections()).toBe(2);
  });

  it('does not send a call again when a new connection drops', async () => {
    const server = await plainServer((req) => req.socket.destroy());
    const result = await streamLlmResponse({ client: lean(server.baseURL), request });
    expect(!result.ok && result.error.kind).toBe('network');
    expect(server.requests()).toBe(1);
  });

  it('reads a compressed stream, as the SDK does', async () => {
    const body = gzipSync(await fixture('tool_use_response.sse'));
    const server = await plainServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(body);
    });
    const fromLean = await streamLlmResponse({ client: lean(server.baseURL), request });
    const fromSdk = await streamLlmResponse({ client: sdk(server.baseURL), request });
    expect(responseOf(fromLean).stopReason).toBe('tool_use');
    expect(fromLean).toEqual(fromSdk);
  });

  it.each([
    ['an HTML error page', 502, 'text/html', '<html><body>Bad gateway</body></html>'],
    ['an empty error body', 503, 'text/plain', ''],
    ['a JSON error body of another shape', 500, 'application/json', '{"detail":"upstream"}'],
  ])('reads %s as the SDK does', async (_name, status, type, text) => {
    const server = await plainServer((_req, res) => {
      res.writeHead(status, {
        'content-type': type,
        'retry-after': '4',
        'request-id': 'req_plain',
      });
      res.end(text);
    });
    const fromLean = await streamLlmResponse({ client: lean(server.baseURL), request });
    const fromSdk = await streamLlmResponse({ client: sdk(server.baseURL), request });
    expect(fromLean).toEqual(fromSdk);
    expect(!fromLean.ok && fromLean.error).toMatchObject({
      kind: 'server',
      status,
      retryAfterMs: 4000,
    });
  });

  it('leaves a redirect to the SDK, which follows it', async () => {
    const sse = await fixture('basic_response.sse');
    const authorizations: Array<string | undefined> = [];
    const server = await plainServer((req, res) => {
      authorizations.push(req.headers.authorization);
      if (req.url === '/v1/messages') {
        res.writeHead(307, { location: '/moved/v1/messages' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse);
    });
    const fromLean = await streamLlmResponse({ client: lean(server.baseURL), request });
    const fromSdk = await streamLlmResponse({ client: sdk(server.baseURL), request });
    expect(responseOf(fromLean).message.content).toEqual([{ type: 'text', text: 'Hello there!' }]);
    expect(fromLean).toEqual(fromSdk);
    // Lean: the call, then the SDK's call and the redirected one; the SDK: its two.
    expect(authorizations).toEqual(Array(5).fill('Bearer test'));
  });

  it('asks an apiKey function for the key of every call', async () => {
    const api = await startMessagesApiServer({ script: [reply('one'), reply('two')] });
    apiServers.push(api);
    let issued = 0;
    const transport = createLeanTransport({
      baseURL: api.baseURL,
      apiKey: () => Promise.resolve(`key-${++issued}`),
    });
    await streamLlmResponse({ client: transport, request });
    await streamLlmResponse({ client: transport, request });
    expect(api.requests.map((sent) => sent.headers.authorization)).toEqual([
      'Bearer key-1',
      'Bearer key-2',
    ]);
  });

  describe('refuses what it cannot honour', () => {
    it.each([
      ['a custom fetch', { fetch: globalThis.fetch }],
      ['fetchOptions', { fetchOptions: { keepalive: true } }],
      [
        'middleware',
        {
          middleware: [
            (request: Request, next: (request: Request) => Promise<Response>) => next(request),
          ],
        },
      ],
      ['a profile', { profile: 'work' }],
      ["the SDK's OpenTelemetry spans", { openTelemetry: {} }],
    ] as const)('%s', (obstacle, options) => {
      expect(leanTransportObstacle(options as never)).toBe(obstacle);
      expect(() => createLeanTransport({ apiKey: 'test', ...(options as object) })).toThrow(
        obstacle,
      );
      expect(codeOf(() => createLeanTransport({ apiKey: 'test', ...(options as object) }))).toBe(
        'INVALID_OPTION',
      );
    });

    it('credentials that only a profile or the credential chain could give', () => {
      const saved = { key: process.env.ANTHROPIC_API_KEY, token: process.env.ANTHROPIC_AUTH_TOKEN };
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_AUTH_TOKEN;
      try {
        expect(() => createLeanTransport({ baseURL: 'http://127.0.0.1:1' })).toThrow(
          AgentStatechartError,
        );
      } finally {
        if (saved.key !== undefined) process.env.ANTHROPIC_API_KEY = saved.key;
        if (saved.token !== undefined) process.env.ANTHROPIC_AUTH_TOKEN = saved.token;
      }
    });
  });

  describe("transport 'auto'", () => {
    it('is lean for an API key and a base URL', () => {
      expect(isLlmTransport(autoLlmClient({ apiKey: 'test', baseURL: 'http://127.0.0.1:1' }))).toBe(
        true,
      );
    });

    it.each([
      ['a custom fetch', { fetch: globalThis.fetch }],
      ['request logging', { logLevel: 'info' }],
      ['no credential but what the SDK looks up', { apiKey: null, authToken: null }],
    ] as const)('keeps the SDK for %s', (_name, options) => {
      const client = autoLlmClient({ apiKey: 'test', baseURL: 'http://127.0.0.1:1', ...options });
      expect(client).toBeInstanceOf(Anthropic);
      expect(isLlmTransport(client)).toBe(false);
    });
  });
});
