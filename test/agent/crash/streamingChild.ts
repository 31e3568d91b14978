/**
 * One process of the restore test: an agent on a SQLite session that sends its input, and once
 * listeners have been shown `killAfterChars` characters of the answer, queues a second message,
 * waits until that is stored, prints the text shown so far and kills itself (SIGKILL) with the
 * model call still streaming.
 *
 * Run (the test bundles it first): node streamingChild.mjs '<json settings>'
 */
import { createAgent, createSqliteSessionStore } from '../../../src/index.js';

interface Settings {
  database: string;
  workspace: string;
  baseURL: string;
  sessionId: string;
  input: string;
  queued: string;
  killAfterChars: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const store = createSqliteSessionStore({ path: settings.database });
const agent = createAgent({
  workspace: settings.workspace,
  autoCommit: false,
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  store,
  sessionId: settings.sessionId,
});
let shown = '';
let queued = false;
agent.on('text', ({ text }) => {
  shown += text;
  if (queued || shown.length < settings.killAfterChars) return;
  queued = true;
  agent.send(settings.queued);
  void agent.recorded().then(() => {
    process.stdout.write(`${JSON.stringify({ shown, state: agent.state })}\n`, () =>
      process.kill(process.pid, 'SIGKILL'),
    );
  });
});
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
agent.send(settings.input);
