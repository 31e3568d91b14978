/**
 * The test MCP servers (test/support/mcp/) work, as seen by the MCP SDK's own client over each
 * transport: stdio, Streamable HTTP and the older HTTP+SSE. Tests of the agent's MCP client rely
 * on these servers behaving as their tools say; this file is where that is checked.
 *
 * Every server process is started once, all at the same time, in the first hook: each takes most
 * of a second to load through tsx, which one after another would make this file slow.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startMcpHttpServer,
  stdioServerCommand,
  type McpHttpServer,
} from './startMcpHttpServer.js';
import {
  createTestServer,
  NOTES_TEXT,
  NOTES_URI,
  RED_DOT_PNG_BASE64,
  TEST_TOOL_ANNOTATIONS,
  TEST_TOOL_NAMES,
  testServerOptionsFromEnv,
} from './testServer.js';

/** Clients made inside one test, closed after it; those of the first hook are closed at the end. */
const testClients: Client[] = [];
const fileClients: Client[] = [];
const servers: McpHttpServer[] = [];
let directory: string;

/** Tool name lists the shared clients were told of (list_changed), newest last. */
const stdioToolLists: string[][] = [];
const httpToolLists: string[][] = [];

let stdio: Client;
let stdioLog: string;
let crashing: Client;
let crashLog: string;
let plain: McpHttpServer;
let plainLog: string;
let authed: McpHttpServer;
let sseOnly: McpHttpServer;
let failedStart: unknown;

async function readLog(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

/** A connected client, which `into` closes when its time comes. */
async function connect(
  transport: Transport,
  into: Client[] = testClients,
  toolLists?: string[][],
): Promise<Client> {
  const client = new Client(
    { name: 'smoke-test', version: '1.0.0' },
    toolLists === undefined
      ? {}
      : {
          listChanged: {
            tools: {
              debounceMs: 0,
              onChanged: (error, tools) => {
                if (error === null && tools !== null) toolLists.push(tools.map((t) => t.name));
              },
            },
          },
        },
  );
  await client.connect(transport);
  into.push(client);
  return client;
}

function stdioTransport(env: Record<string, string>): StdioClientTransport {
  // stderr piped (and dropped) rather than inherited, so the test output stays clean.
  return new StdioClientTransport({ ...stdioServerCommand(), env, stderr: 'pipe' });
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agent-statechart-mcp-'));
  stdioLog = join(directory, 'stdio.log');
  crashLog = join(directory, 'crash.log');
  plainLog = join(directory, 'http.log');
  const started = await Promise.allSettled([
    connect(stdioTransport({ MCP_TEST_LOG: stdioLog }), fileClients, stdioToolLists),
    connect(stdioTransport({ MCP_TEST_LOG: crashLog }), fileClients),
    startMcpHttpServer({ MCP_TEST_LOG: plainLog }),
    startMcpHttpServer({ MCP_TEST_AUTH: 'secret' }),
    startMcpHttpServer({ MCP_TEST_SSE_ONLY: '1' }),
    // A child that dies at once, before tsx has loaded anything.
    startMcpHttpServer({ NODE_OPTIONS: '--require=/nonexistent/preload.cjs' }),
  ]);
  const values = started.map((result) =>
    result.status === 'fulfilled' ? result.value : undefined,
  );
  for (const value of values) if (value !== undefined && 'stop' in value) servers.push(value);
  // The last one is meant to fail; any other failure fails the file (after the rest are kept
  // above for afterAll to stop).
  const last = started.pop();
  failedStart = last?.status === 'rejected' ? last.reason : 'it started';
  const failure = started.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  [stdio, crashing, plain, authed, sseOnly] = values as [
    Client,
    Client,
    McpHttpServer,
    McpHttpServer,
    McpHttpServer,
  ];
});

afterEach(async () => {
  await Promise.all(testClients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await Promise.all(fileClients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

/**
 * Calls `slow` and checks its progress. Only a leading part of the steps is certain to arrive:
 * the SDK's client hands a notification to its handler a microtask later but a response at once,
 * so a progress notification read in the same chunk as the answer finds its handler gone (and is
 * reported to `onerror` as "unknown token"). With steps 20 ms apart only the last is at risk.
 */
async function expectSlowProgress(client: Client) {
  const progress: Progress[] = [];
  const done = await client.callTool(
    { name: 'slow', arguments: { steps: 3, stepMs: 20 } },
    undefined,
    { onprogress: (update) => progress.push(update) },
  );
  expect(done.content).toEqual([{ type: 'text', text: 'done after 3 steps' }]);
  expect(progress.length).toBeGreaterThanOrEqual(1);
  expect(progress).toEqual(
    [1, 2, 3]
      .slice(0, progress.length)
      .map((step) => ({ progress: step, total: 3, message: `step ${step}` })),
  );
}

/** Calls a long `slow`, aborts it at its first progress, and waits for the server to log it. */
async function expectSlowCancelled(client: Client, log: string) {
  const abort = new AbortController();
  const call = client.callTool({ name: 'slow', arguments: { steps: 100, stepMs: 20 } }, undefined, {
    signal: abort.signal,
    // Aborted once the server is surely in the middle of it.
    onprogress: () => abort.abort(new Error('stop it')),
  });
  await expect(call).rejects.toThrow('stop it');
  await expect.poll(() => readLog(log), { timeout: 5_000 }).toContain('slow cancelled\n');
}

describe('the stdio test server', () => {
  it('lists every tool with its annotations, and none for no_hints', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...TEST_TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toEqual(
        TEST_TOOL_ANNOTATIONS[tool.name as keyof typeof TEST_TOOL_ANNOTATIONS],
      );
    }
    expect(tools.find((tool) => tool.name === 'no_hints')).not.toHaveProperty('annotations');
    expect(stdio.getServerVersion()?.name).toBe('test-server');
  });

  it('answers with text, an image, embedded resources, links and tool errors', async () => {
    expect(await stdio.callTool({ name: 'lookup', arguments: { key: 'k' } })).toEqual({
      content: [{ type: 'text', text: 'value of k' }],
    });
    expect(await stdio.callTool({ name: 'delete_item', arguments: { id: 'i7' } })).toEqual({
      content: [{ type: 'text', text: 'deleted i7' }],
    });
    expect(await readLog(stdioLog)).toContain('delete_item i7\n');
    expect(
      await stdio.callTool({ name: 'set_flag', arguments: { name: 'f', value: true } }),
    ).toEqual({ content: [{ type: 'text', text: 'flag f set to true' }] });
    expect(await stdio.callTool({ name: 'no_hints' })).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });

    const image = await stdio.callTool({ name: 'image' });
    expect(image.content).toEqual([
      { type: 'image', data: RED_DOT_PNG_BASE64, mimeType: 'image/png' },
      { type: 'text', text: 'a red dot' },
    ]);
    // A real PNG: its signature, then an IHDR chunk for 1x1.
    const png = Buffer.from(RED_DOT_PNG_BASE64, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1, 1]);

    const resource = await stdio.callTool({ name: 'resource' });
    expect(resource.content).toEqual([
      { type: 'resource', resource: { uri: NOTES_URI, mimeType: 'text/plain', text: NOTES_TEXT } },
      { type: 'resource_link', uri: NOTES_URI, name: 'notes.txt', mimeType: 'text/plain' },
    ]);
    const read = await stdio.readResource({ uri: NOTES_URI });
    expect(read.contents).toEqual([{ uri: NOTES_URI, mimeType: 'text/plain', text: NOTES_TEXT }]);

    expect(await stdio.callTool({ name: 'fails' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'the thing failed' }],
    });
  });

  it('reports progress on slow, and stops it when the call is aborted', async () => {
    await expectSlowProgress(stdio);
    await expectSlowCancelled(stdio, stdioLog);
  });

  it('tells the client when add_tool and remove_tool change the tool list', async () => {
    expect(await stdio.callTool({ name: 'add_tool', arguments: { name: 'greet' } })).toEqual({
      content: [{ type: 'text', text: 'added' }],
    });
    await expect.poll(() => stdioToolLists.at(-1), { timeout: 5_000 }).toContain('greet');
    const { tools } = await stdio.listTools();
    expect(tools.find((tool) => tool.name === 'greet')?.annotations).toEqual({
      readOnlyHint: true,
    });
    expect(await stdio.callTool({ name: 'greet' })).toEqual({
      content: [{ type: 'text', text: 'hello from greet' }],
    });

    await stdio.callTool({ name: 'remove_tool', arguments: { name: 'greet' } });
    await expect.poll(() => stdioToolLists.at(-1), { timeout: 5_000 }).not.toContain('greet');
  });

  it('closes the connection when crash ends the server', async () => {
    const closed = new Promise<void>((resolve) => (crashing.onclose = resolve));
    await expect(crashing.callTool({ name: 'crash' })).rejects.toThrow(/closed/i);
    await closed;
    expect(await readLog(crashLog)).toBe('crash\n');
  });
});

describe('the test server built from the environment', () => {
  // In this process, over the SDK's in-memory transport: the entries build it the same way.
  it('serves only the tools MCP_TEST_TOOLS names, with MCP_TEST_TOOL_PREFIX before them', async () => {
    const env = { MCP_TEST_TOOLS: 'lookup, slow', MCP_TEST_TOOL_PREFIX: 'b_' };
    const server = createTestServer(testServerOptionsFromEnv(env));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = await connect(clientSide);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['b_lookup', 'b_slow']);
    expect(await client.callTool({ name: 'b_lookup', arguments: { key: 'k' } })).toEqual({
      content: [{ type: 'text', text: 'value of k' }],
    });
    await server.close();
  });

  it('refuses to start with a tool MCP_TEST_TOOLS does not know', () => {
    expect(() => testServerOptionsFromEnv({ MCP_TEST_TOOLS: 'lookup,nope' })).toThrow(
      'MCP_TEST_TOOLS names unknown tools: nope',
    );
  });
});

describe('the HTTP test server', () => {
  it('prints its URL, and rejects with its stderr when it cannot start', () => {
    expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(failedStart).toBeInstanceOf(Error);
    expect((failedStart as Error).message).toMatch(
      /exited \(1\) before listening:\n[\s\S]*Cannot find module '\/nonexistent\/preload\.cjs'/,
    );
  });

  it('serves Streamable HTTP at /mcp: tools, content, progress, cancellation and list changes', async () => {
    const client = await connect(
      new StreamableHTTPClientTransport(new URL(`${plain.url}/mcp`)),
      testClients,
      httpToolLists,
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...TEST_TOOL_NAMES]);
    expect(tools.find((tool) => tool.name === 'delete_item')?.annotations).toEqual({
      destructiveHint: true,
    });
    const image = await client.callTool({ name: 'image' });
    expect(image.content).toContainEqual({
      type: 'image',
      data: RED_DOT_PNG_BASE64,
      mimeType: 'image/png',
    });
    await expectSlowProgress(client);
    await expectSlowCancelled(client, plainLog);

    // list_changed answers no request, so it travels on the session's standalone GET stream.
    await client.callTool({ name: 'add_tool', arguments: { name: 'greet' } });
    await expect.poll(() => httpToolLists.at(-1), { timeout: 5_000 }).toContain('greet');
  });

  it('keeps sessions apart: a tool added in one is not in another', async () => {
    const url = new URL(`${plain.url}/mcp`);
    const first = await connect(new StreamableHTTPClientTransport(url));
    const second = await connect(new StreamableHTTPClientTransport(url));
    await first.callTool({ name: 'add_tool', arguments: { name: 'mine' } });
    expect((await first.listTools()).tools.map((tool) => tool.name)).toContain('mine');
    expect((await second.listTools()).tools.map((tool) => tool.name)).not.toContain('mine');
  });

  it('also serves the older HTTP+SSE transport at /sse', async () => {
    const client = await connect(new SSEClientTransport(new URL(`${plain.url}/sse`)));
    expect(await client.callTool({ name: 'lookup', arguments: { key: 'x' } })).toEqual({
      content: [{ type: 'text', text: 'value of x' }],
    });
  });

  it('with MCP_TEST_AUTH, answers 401 without the bearer token and serves with it', async () => {
    const refused = await fetch(`${authed.url}/mcp`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    await expect(
      connect(new StreamableHTTPClientTransport(new URL(`${authed.url}/mcp`))),
    ).rejects.toMatchObject({ code: 401 });

    const headers = { Authorization: 'Bearer secret' };
    const client = await connect(
      new StreamableHTTPClientTransport(new URL(`${authed.url}/mcp`), { requestInit: { headers } }),
    );
    expect((await client.listTools()).tools).toHaveLength(TEST_TOOL_NAMES.length);
    const sse = await connect(
      new SSEClientTransport(new URL(`${authed.url}/sse`), { requestInit: { headers } }),
    );
    expect((await sse.listTools()).tools).toHaveLength(TEST_TOOL_NAMES.length);
  });

  it('with MCP_TEST_SSE_ONLY, refuses Streamable HTTP so that clients fall back to SSE', async () => {
    await expect(
      connect(new StreamableHTTPClientTransport(new URL(`${sseOnly.url}/mcp`))),
    ).rejects.toMatchObject({ code: 404 });
    const client = await connect(new SSEClientTransport(new URL(`${sseOnly.url}/sse`)));
    await expectSlowProgress(client);
  });
});
