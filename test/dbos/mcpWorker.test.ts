/**
 * A DBOS worker with an MCP server (a real PostgreSQL, a real worker in this process, the stdio
 * test server): a session's drive calls the server's tools, and a tool the server adds during a
 * turn is offered from the drive's next model request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SessionWorker, startSessionWorker } from '../../src/dbos/index.js';
import { createToolRegistry } from '../../src/index.js';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { testLlmClient } from '../support/llmTransport.js';
import { stdioServerCommand } from '../support/mcp/startMcpHttpServer.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';

const installation = inject('postgresInstallation');

describe.skipIf(installation === null)('a session worker with MCP servers', () => {
  let postgres: PostgresServer;
  let model: MessagesApiServer;
  let worker: SessionWorker;
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcp-worker-'));
    model = await startMessagesApiServer({
      script: [
        reply([{ type: 'tool_use', name: 'mcp__t__lookup', input: { key: 'k' } }]),
        reply([{ type: 'tool_use', name: 'mcp__t__add_tool', input: { name: 'greet' } }]),
        reply([{ type: 'tool_use', name: 'mcp__t__greet', input: {} }]),
        reply('All done.'),
      ],
    });
    postgres = await startPostgres({ installation: installation!, database: 'mcp_worker' });
    const tools = createToolRegistry([]);
    worker = await startSessionWorker({
      connectionString: postgres.connectionString,
      agent: { tools: tools.specs(), permissions: { mode: 'bypassPermissions' } },
      tools,
      workspace: directory,
      llm: testLlmClient({ baseURL: model.baseURL, apiKey: 'test-key' }),
      mcpServers: { t: { ...stdioServerCommand(), env: { MCP_TEST_LOG: join(directory, 'log') } } },
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await postgres?.stop();
    await model?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("drives a session through the server's tools, and offers a tool it added on the next request", async () => {
    await worker.createSession('mcp-1');
    const { workflowId } = await worker.send('mcp-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'Look up k, then add a greeting and use it' },
    });
    const ended: Array<{ name: string; status: string }> = [];
    for await (const value of worker.events(workflowId)) {
      if (value.type === 'toolEnd')
        ended.push({ name: value.call.name, status: value.outcome.status });
    }
    expect(await worker.result(workflowId)).toMatchObject({ state: 'WaitingForUserInput' });
    expect(ended).toEqual([
      { name: 'mcp__t__lookup', status: 'success' },
      { name: 'mcp__t__add_tool', status: 'success' },
      { name: 'mcp__t__greet', status: 'success' },
    ]);
    const names = (index: number) =>
      (model.requests[index]?.body.tools ?? []).map((tool) => tool.name);
    expect(names(0)).toContain('mcp__t__lookup');
    expect(names(1)).not.toContain('mcp__t__greet');
    expect(names(2)).toContain('mcp__t__greet');
    const session = await worker.open('mcp-1');
    const results = session.core.context.messages[2]?.content;
    expect(JSON.stringify(results)).toContain('value of k');
  });
});
