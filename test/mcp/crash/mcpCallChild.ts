/**
 * One process of the MCP crash test: an agent on a SQLite session, with the stdio test server,
 * that sends its input and, once the server has started the `slow` call the model asked for
 * (its log says so) and the start is stored, kills itself (SIGKILL) with the call still running.
 *
 * Run (the test bundles it first): node mcpCallChild.mjs '<json settings>'
 */
import { readFile } from 'node:fs/promises';
import { createAgent, createSqliteSessionStore, type McpServerConfig } from '../../../src/index.js';

interface Settings {
  database: string;
  workspace: string;
  baseURL: string;
  sessionId: string;
  input: string;
  server: McpServerConfig;
  log: string;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const agent = createAgent({
  workspace: settings.workspace,
  autoCommit: false,
  tools: [],
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  permissions: { mode: 'bypassPermissions' },
  store: createSqliteSessionStore({ path: settings.database }),
  sessionId: settings.sessionId,
  mcpServers: { t: settings.server },
});
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
agent.on('toolStart', () => {
  void (async () => {
    await agent.recorded();
    while (!(await readFile(settings.log, 'utf8').catch(() => '')).includes('slow started')) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    process.stdout.write(`${JSON.stringify({ state: agent.state })}\n`, () =>
      process.kill(process.pid, 'SIGKILL'),
    );
  })();
});
await agent.ready;
agent.send(settings.input);
