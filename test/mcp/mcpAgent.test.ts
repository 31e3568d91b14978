/**
 * An agent taking tools from real MCP servers (the SDK's own server classes, in child
 * processes): the model is offered them as `mcp__<server>__<tool>` with the server's schema, the
 * calls go through the MCP SDK's client, annotations decide the permissions, results reach the
 * model as content blocks, progress and cancellation cross the protocol, a crashed server is
 * reported and started again, and a changed tool list reaches the next request.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Agent,
  type AgentNotifications,
  createAgentHost,
  type McpServerConfig,
  type ToolOutcome,
} from '../../src/index.js';
import { reply, type ScriptedBlock, startMessagesApiServer } from '../../src/testing/index.js';
import { useScriptedAgents } from '../agent/scriptedAgents.js';
import {
  type McpHttpServer,
  startMcpHttpServer,
  stdioServerCommand,
} from '../support/mcp/startMcpHttpServer.js';
import { RED_DOT_PNG_BASE64 } from '../support/mcp/testServer.js';

const scripted = useScriptedAgents('mcp-agent-');
const httpServers: McpHttpServer[] = [];
afterEach(async () => {
  await Promise.all(httpServers.splice(0).map((server) => server.stop()));
});

function logFile(): string {
  return join(scripted.temp.directory, 'mcp.log');
}

async function readLog(): Promise<string> {
  return readFile(logFile(), 'utf8').catch(() => '');
}

/** The stdio test server as `t`, logging to the test's folder. */
function stdioServer(extra: Partial<McpServerConfig> = {}): Record<string, McpServerConfig> {
  return {
    t: { ...stdioServerCommand(), env: { MCP_TEST_LOG: logFile() }, ...extra } as McpServerConfig,
  };
}

function call(name: string, input: Record<string, unknown>): ScriptedBlock {
  return { type: 'tool_use', name, input };
}

/** Every notification of these names, from now on. */
function collect<Name extends keyof AgentNotifications>(agent: Agent, name: Name) {
  const seen: AgentNotifications[Name][] = [];
  agent.on(name, (payload) => seen.push(payload));
  return seen;
}

function toolNamesOf(body: unknown): string[] {
  return ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
}

function lastToolResults(body: unknown): Array<Record<string, unknown>> {
  const messages = (body as { messages: Array<{ content: unknown }> }).messages;
  return messages.at(-1)?.content as Array<Record<string, unknown>>;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('an agent with a stdio MCP server', () => {
  it("offers the server's tools with their schemas, and calls them through the protocol", async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__lookup', { key: 'colour' })]), reply('It is blue.')],
      { mcpServers: stdioServer() },
    );
    const [status] = agent.mcpServers();
    expect(status).toMatchObject({ name: 't', state: 'connected', transport: 'stdio' });
    expect(status?.tools).toContain('mcp__t__lookup');
    agent.send('What colour?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const [first, second] = scripted.server().requests;
    expect(toolNamesOf(first?.body)).toEqual(
      expect.arrayContaining(['look_up', 'mcp__t__lookup', 'mcp__t__delete_item']),
    );
    const lookup = first?.body.tools?.find((tool) => tool.name === 'mcp__t__lookup');
    expect(lookup?.input_schema).toMatchObject({
      type: 'object',
      properties: { key: { type: 'string' } },
      required: ['key'],
    });
    expect(lastToolResults(second?.body)).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        content: [{ type: 'text', text: 'value of colour' }],
      }),
    ]);
  });

  it('reads annotations as permissions: read-only runs, destructive asks, and rules name whole servers', async () => {
    const agent = await scripted.start(
      [
        reply([call('mcp__t__lookup', { key: 'a' }), call('mcp__t__delete_item', { id: 'x1' })]),
        reply('Done.'),
      ],
      { mcpServers: stdioServer(), permissions: { mode: 'default' } },
    );
    const asked = collect(agent, 'approvalRequest');
    const ended = collect(agent, 'toolEnd');
    agent.send('Delete x1');
    await until(() => asked.length === 1);
    expect(asked[0]?.call.name).toBe('mcp__t__delete_item');
    expect(await readLog()).toBe('');
    agent.approve(asked[0]!.call.id);
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(await readLog()).toContain('delete_item x1');
    expect(ended.map((end) => [end.call.name, end.outcome.status])).toEqual([
      ['mcp__t__lookup', 'success'],
      ['mcp__t__delete_item', 'success'],
    ]);
  });

  it('denies every tool of a server a deny rule names, even in bypassPermissions', async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__lookup', { key: 'a' }), call('look_up', { word: 'w' })]), reply('Ok.')],
      {
        mcpServers: stdioServer(),
        permissions: { mode: 'bypassPermissions', deny: ['mcp__t__*'] },
      },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Go');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const byName = Object.fromEntries(ended.map((end) => [end.call.name, end.outcome]));
    expect(byName.mcp__t__lookup).toMatchObject({ status: 'error' });
    expect(errorText(byName.mcp__t__lookup)).toMatch(/deny rule/);
    expect(byName.look_up).toMatchObject({ status: 'success' });
  });

  it('runs read-only tools in plan mode and refuses the others, an override included', async () => {
    const agent = await scripted.start(
      [
        reply([
          call('mcp__t__lookup', { key: 'a' }),
          call('mcp__t__set_flag', { name: 'f', value: true }),
          call('mcp__t__no_hints', {}),
        ]),
        reply('Ok.'),
      ],
      {
        mcpServers: stdioServer({ tools: { no_hints: { mutating: false } } }),
        permissions: { mode: 'plan' },
      },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Go');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const byName = Object.fromEntries(ended.map((end) => [end.call.name, end.outcome.status]));
    expect(byName).toEqual({
      mcp__t__lookup: 'success',
      mcp__t__set_flag: 'error',
      mcp__t__no_hints: 'success',
    });
    const specs = agent.context.config.tools;
    expect(specs.find((spec) => spec.name === 'mcp__t__set_flag')).toMatchObject({
      mutating: true,
      idempotent: true,
    });
  });

  it('shows the model images as image blocks, and a failed call as an error it reads', async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__image', {}), call('mcp__t__fails', {})]), reply('A red dot.')],
      { mcpServers: stdioServer() },
    );
    agent.send('Show me');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const results = lastToolResults(scripted.server().requests[1]?.body);
    expect(results[0]).toMatchObject({
      content: [
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: RED_DOT_PNG_BASE64 },
        },
        { type: 'text', text: 'a red dot' },
      ],
    });
    expect(results[1]).toMatchObject({ is_error: true });
    expect(JSON.stringify(results[1]?.content)).toContain('the thing failed');
  });

  it('checks the input against the server schema before calling, and tells the model what to fix', async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__delete_item', { id: 42 })]), reply('Sorry.')],
      { mcpServers: stdioServer(), permissions: { mode: 'bypassPermissions' } },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Delete 42');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(errorText(ended[0]?.outcome)).toMatch(
      /invalid input for tool 'mcp__t__delete_item'[\s\S]*id/,
    );
    expect(await readLog()).toBe('');
  });

  it('passes progress on, and an interrupt cancels the call on the server', async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__slow', { steps: 100, stepMs: 100 })]), reply('Stopped.')],
      { mcpServers: stdioServer(), permissions: { mode: 'bypassPermissions' } },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Go slowly');
    await until(() => {
      const progress = agent.context.toolRuns[0]?.progress as { progress?: number } | undefined;
      return (progress?.progress ?? 0) >= 2;
    });
    expect(agent.context.toolRuns[0]?.progress).toMatchObject({ total: 100 });
    agent.interrupt();
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    await until(async () => (await readLog()).includes('slow cancelled'));
    expect(errorText(ended[0]?.outcome)).toMatch(/may or may not have taken effect/);
  });

  it('cancels a call on the server when its timeout passes, and says the call timed out', async () => {
    const agent = await scripted.start(
      [reply([call('mcp__t__slow', { steps: 100, stepMs: 100 })]), reply('Too slow.')],
      {
        mcpServers: stdioServer({ tools: { slow: { timeoutMs: 300 } } }),
        permissions: { mode: 'bypassPermissions' },
      },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Go slowly');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(errorText(ended[0]?.outcome)).toBe('timed out after 300 ms');
    await until(async () => (await readLog()).includes('slow cancelled'));
  });

  it('reports a server that crashed mid-call, answers its calls with an error meanwhile, and starts it again', async () => {
    const agent = await scripted.start(
      [
        reply([call('mcp__t__crash', {})]),
        reply([call('mcp__t__lookup', { key: 'k' })]),
        reply('Crashed.'),
        reply([call('mcp__t__lookup', { key: 'k' })]),
        reply('Back.'),
      ],
      { mcpServers: stdioServer(), permissions: { mode: 'bypassPermissions' } },
    );
    const changes = collect(agent, 'mcp');
    const errors = collect(agent, 'error');
    const ended = collect(agent, 'toolEnd');
    agent.send('Crash it');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(errorText(ended[0]?.outcome)).toMatch(
      /went away during the call; it may or may not have taken effect/,
    );
    expect(errorText(ended[1]?.outcome)).toMatch(
      /MCP server 't' is (down and restarting|reconnecting)/,
    );
    expect(changes.map((change) => change.kind)).toContain('down');
    expect(errors.some((error) => error.source === 'mcp')).toBe(true);
    await until(() => agent.mcpServers()[0]?.state === 'connected');
    expect(agent.mcpServers()[0]?.restarts).toBe(1);
    agent.send('Again');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(ended[2]?.outcome).toEqual({
      status: 'success',
      content: [{ type: 'text', text: 'value of k' }],
    });
  });

  it('offers a tool the server added on the next request', async () => {
    const agent = await scripted.start(
      [
        reply([call('mcp__t__add_tool', { name: 'greet' })]),
        reply([call('mcp__t__greet', {})]),
        reply('Hi.'),
      ],
      { mcpServers: stdioServer(), permissions: { mode: 'bypassPermissions' } },
    );
    const ended = collect(agent, 'toolEnd');
    agent.send('Add a tool and use it');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const [first, , third] = scripted.server().requests;
    expect(toolNamesOf(first?.body)).not.toContain('mcp__t__greet');
    expect(toolNamesOf(third?.body)).toContain('mcp__t__greet');
    expect(ended.map((end) => end.outcome.status)).toEqual(['success', 'success']);
    expect(agent.context.config.tools.map((tool) => tool.name)).toContain('mcp__t__greet');
  });

  it('resumes a stored session with the tools its servers have now, not those its log replayed', async () => {
    const options = {
      mcpServers: stdioServer(),
      permissions: { mode: 'bypassPermissions' as const },
      store: scripted.temp.store,
      sessionId: 'tools-change',
    };
    const first = await scripted.start(
      [
        reply([call('mcp__t__add_tool', { name: 'greet' })]),
        reply([call('mcp__t__slow', { steps: 100, stepMs: 100 })]),
        reply('Resumed.'),
      ],
      options,
    );
    const started = collect(first, 'toolStart');
    first.send('Add a tool, then work slowly');
    await until(() => started.some((start) => start.call.name === 'mcp__t__slow'));
    expect(first.context.config.tools.map((tool) => tool.name)).toContain('mcp__t__greet');
    // Stopped mid-turn: the log's tail, replayed on resume, holds the SetTools of the new tool;
    // the session still resumes with the config it is opened with.
    await first.shutdown();
    // A new server process: the tool added to the old one is gone.
    const again = await scripted.start([], options);
    await again.waitUntilIdle({ timeoutMs: 30_000 });
    expect(again.context.config.tools.map((tool) => tool.name)).not.toContain('mcp__t__greet');
    const resumedRequest = scripted.server().requests[2];
    expect(toolNamesOf(resumedRequest?.body)).toContain('mcp__t__lookup');
    expect(toolNamesOf(resumedRequest?.body)).not.toContain('mcp__t__greet');
  });

  it('starts without a server that cannot start, says why, and closes the others on shutdown', async () => {
    const agent = await scripted.start([reply('Fine.')], {
      mcpServers: {
        ...stdioServer(),
        broken: { command: join(scripted.temp.directory, 'no-such-server') },
      },
    });
    const broken = agent.mcpServers().find((server) => server.name === 'broken');
    expect(broken).toMatchObject({ state: 'restarting', tools: [] });
    expect(broken?.error).toMatch(/could not start/);
    agent.send('Hello');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(agent.context.messages.at(-1)).toMatchObject({ role: 'assistant' });
    await agent.shutdown();
    expect(agent.mcpServers().map((server) => server.state)).toEqual(['closed', 'closed']);
  });
});

describe('a host of sessions with MCP servers', () => {
  it('connects each server once and shares it among its sessions', async () => {
    const server = await startMessagesApiServer({
      script: [reply([call('mcp__t__add_tool', { name: 'shared' })]), reply('Added.')],
    });
    const host = createAgentHost({
      store: scripted.temp.store,
      workspace: scripted.temp.directory,
      autoCommit: false,
      tools: [],
      anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      permissions: { mode: 'bypassPermissions' },
      mcpServers: stdioServer(),
    });
    try {
      const first = await host.agent('first');
      const second = await host.agent('second');
      await host.send('first', 'Add a tool');
      await first.waitUntilIdle({ timeoutMs: 30_000 });
      // A tool added through one session's connection is the other session's tool too.
      await until(() => second.context.config.tools.some((tool) => tool.name === 'mcp__t__shared'));
      expect(second.mcpServers()).toEqual(first.mcpServers());
      await host.close();
      expect(first.mcpServers()[0]?.state).toBe('closed');
    } finally {
      await host.close();
      await server.close();
    }
  });
});

describe('an agent with an HTTP MCP server', () => {
  it('speaks Streamable HTTP with the headers given', async () => {
    const server = await startMcpHttpServer({ MCP_TEST_AUTH: 'secret' });
    httpServers.push(server);
    const agent = await scripted.start(
      [reply([call('mcp__web__lookup', { key: 'k' })]), reply('Ok.')],
      {
        mcpServers: {
          web: { url: `${server.url}/mcp`, headers: { Authorization: 'Bearer secret' } },
          refused: { url: `${server.url}/mcp`, headers: { Authorization: 'Bearer wrong' } },
        },
      },
    );
    const [web, refused] = agent.mcpServers();
    expect(web).toMatchObject({ state: 'connected', transport: 'http' });
    expect(refused?.state).toBe('restarting');
    agent.send('Look up k');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(lastToolResults(scripted.server().requests[1]?.body)[0]).toMatchObject({
      content: [{ type: 'text', text: 'value of k' }],
    });
  });

  it('falls back to HTTP+SSE for a server that does not speak Streamable HTTP', async () => {
    const server = await startMcpHttpServer({ MCP_TEST_SSE_ONLY: '1' });
    httpServers.push(server);
    const agent = await scripted.start(
      [reply([call('mcp__old__lookup', { key: 'k' })]), reply('Ok.')],
      {
        mcpServers: { old: { url: `${server.url}/sse` } },
      },
    );
    expect(agent.mcpServers()[0]).toMatchObject({ state: 'connected', transport: 'sse' });
    const ended = collect(agent, 'toolEnd');
    agent.send('Look up k');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(ended[0]?.outcome.status).toBe('success');
  });
});

function errorText(outcome: ToolOutcome | undefined): string {
  return outcome?.status === 'error'
    ? outcome.error.message
    : `not an error: ${JSON.stringify(outcome)}`;
}
