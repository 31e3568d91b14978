/**
 * The test MCP server (testServer.ts) over HTTP, on 127.0.0.1. Start it from the repository root
 * with
 *
 *   node --import tsx test/support/mcp/httpServer.ts
 *
 * or from a test with `startMcpHttpServer()`. Once listening it prints one line to stdout,
 * `{"url":"http://127.0.0.1:<port>"}`; nothing else goes to stdout.
 *
 * - `/mcp`: Streamable HTTP, stateful: an initialize request without a session id opens a
 *   session, with its own `McpServer` and transport; later requests name it in `mcp-session-id`.
 * - `/sse` (GET) and `/messages?sessionId=…` (POST): the deprecated HTTP+SSE transport, one
 *   `McpServer` per event stream, for clients that fall back to it.
 *
 * Environment (besides testServer.ts's): `PORT` (default 0, any free port); `MCP_TEST_AUTH=<token>`
 * answers 401 to every request without `Authorization: Bearer <token>`; `MCP_TEST_SSE_ONLY=1`
 * answers 404 on `/mcp`, as a server from before Streamable HTTP would, so clients must fall back;
 * `MCP_TEST_EXIT_WITH_STDIN=1` exits when stdin ends (startMcpHttpServer sets it).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createTestServer, testServerOptionsFromEnv } from './testServer.js';

console.log = console.error;

const options = testServerOptionsFromEnv();
const token = process.env.MCP_TEST_AUTH || undefined;
const sseOnly = process.env.MCP_TEST_SSE_ONLY === '1';

const sessions = new Map<string, StreamableHTTPServerTransport>();
const sseSessions = new Map<string, SSEServerTransport>();

function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A JSON-RPC error with no request id, the shape Streamable HTTP clients expect on a refusal. */
function rpcError(res: ServerResponse, status: number, code: number, message: string) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handleStreamable(req: IncomingMessage, res: ServerResponse) {
  let body: unknown;
  if (req.method === 'POST') {
    try {
      body = await readJson(req);
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
  }
  const sessionId = req.headers['mcp-session-id'];
  if (typeof sessionId === 'string') {
    const transport = sessions.get(sessionId);
    // 404 tells a client its session is gone (so it may start a new one), per the spec.
    if (transport === undefined) return rpcError(res, 404, -32001, 'Session not found');
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== 'POST' || !isInitializeRequest(body)) {
    return rpcError(res, 400, -32000, 'Bad Request: no session id, and not an initialize request');
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    // Stored only once the SDK has accepted the initialize request and picked the id.
    onsessioninitialized: (id) => {
      sessions.set(id, transport);
    },
    onsessionclosed: (id) => {
      sessions.delete(id);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await createTestServer(options).connect(transport);
  await transport.handleRequest(req, res, body);
}

async function handleSseStream(res: ServerResponse) {
  // The transport tells the client to post to this path, with its session id in the query.
  const transport = new SSEServerTransport('/messages', res);
  sseSessions.set(transport.sessionId, transport);
  transport.onclose = () => {
    sseSessions.delete(transport.sessionId);
  };
  // connect() starts the transport, which writes the event stream's head and `endpoint` event.
  await createTestServer(options).connect(transport);
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
    return sendJson(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/mcp') {
    if (sseOnly) return sendJson(res, 404, { error: 'not found' });
    return handleStreamable(req, res);
  }
  if (url.pathname === '/sse' && req.method === 'GET') return handleSseStream(res);
  if (url.pathname === '/messages' && req.method === 'POST') {
    const transport = sseSessions.get(url.searchParams.get('sessionId') ?? '');
    if (transport === undefined) return sendJson(res, 404, { error: 'no such SSE session' });
    // The SSE transport reads and checks the body itself.
    return transport.handlePostMessage(req, res);
  }
  sendJson(res, 404, { error: 'not found' });
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error('test MCP HTTP server:', error);
    if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
    else res.end();
  });
});

// The parent holds our stdin open until it stops us or dies; when it dies without stopping us
// (a killed test worker), the end of stdin is what keeps this server from living on as an orphan.
if (process.env.MCP_TEST_EXIT_WITH_STDIN === '1') {
  process.stdin.once('end', () => process.exit(0)).resume();
}

const port = Number(process.env.PORT ?? 0);
http.listen(port, '127.0.0.1', () => {
  const { port: bound } = http.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${bound}` })}\n`);
});
