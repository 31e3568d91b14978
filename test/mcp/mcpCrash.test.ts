/**
 * A process killed during an MCP tool call: the session resumes in another process with the
 * same server, and the call that was running (mutating, not idempotent) is reported to the model
 * as one that may or may not have taken effect — never sent to the server again.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createSqliteSessionStore, type McpServerConfig } from '../../src/index.js';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import { stdioServerCommand } from '../support/mcp/startMcpHttpServer.js';

const run = promisify(execFile);

let directory: string;
let server: MessagesApiServer;
let childScript: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mcp-crash-'));
  server = await startMessagesApiServer({
    script: [
      reply([{ type: 'tool_use', name: 'mcp__t__slow', input: { steps: 100, stepMs: 100 } }]),
      reply('I will check whether it finished.'),
    ],
  });
  const bundled = await bundleChild('mcp-crash', ['test/mcp/crash/mcpCallChild.ts']);
  childScript = join(bundled, 'mcpCallChild.mjs');
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('a process killed during an MCP call', () => {
  it('resumes with the call reported as uncertain, and does not send it again', async () => {
    const workspace = await mkdtemp(join(directory, 'workspace-'));
    const database = join(directory, 'sessions.db');
    const log = join(directory, 'mcp.log');
    const mcpServer: McpServerConfig = { ...stdioServerCommand(), env: { MCP_TEST_LOG: log } };
    const settings = {
      database,
      workspace,
      baseURL: server.baseURL,
      sessionId: 'mcp-crash',
      input: 'Run the slow job',
      server: mcpServer,
      log,
    };
    const child = await run(process.execPath, [childScript, JSON.stringify(settings)]).then(
      ({ stdout, stderr }) => ({ signal: null, stdout, stderr }),
      (error: { signal?: string; stdout?: string; stderr?: string }) => error,
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(JSON.parse(child.stdout?.trim() ?? '')).toEqual({ state: 'ExecutingTools' });

    const store = createSqliteSessionStore({ path: database });
    const agent = createAgent({
      workspace,
      autoCommit: false,
      tools: [],
      anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      permissions: { mode: 'bypassPermissions' },
      store,
      sessionId: 'mcp-crash',
      mcpServers: { t: mcpServer },
    });
    try {
      await agent.ready;
      await agent.waitUntilIdle({ timeoutMs: 20_000 });
      const [, resumed] = server.requests;
      const results = resumed?.body.messages.at(-1)?.content as Array<Record<string, unknown>>;
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ type: 'tool_result', is_error: true });
      expect(JSON.stringify(results[0]?.content)).toMatch(/may or may not have taken effect/);
      // Only the killed process's call ever reached the server.
      const started = (await readFile(log, 'utf8')).match(/slow started/g) ?? [];
      expect(started).toHaveLength(1);
      expect(agent.context.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'I will check whether it finished.' }],
      });
    } finally {
      await agent.shutdown();
      await store.close();
    }
  });
});
