/**
 * One process of the compaction crash test: an agent on a stored session (SQLite, or PostgreSQL
 * when a connection string is given) sends the input that makes it compact (compactionTurn.ts)
 * unless the session holds it already, and drives the session until it is idle. With
 * `killBeforeWrite` / `killAfterWrite: k` it kills itself (SIGKILL) just before its k-th write to
 * the store, or the moment that write is stored; otherwise it prints the transcript, its writes,
 * the chart as it stands and the session's whole log.
 *
 * Run (the test bundles it first): node compactionChild.mjs '<json settings>'
 */
import { createAgent } from '../../../src/index.js';
import { createPostgresSessionStore } from '../../../src/persistence/postgresSessionStore.js';
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import type { SessionStore } from '../../../src/persistence/sessionStore.js';
import { COMPACTION, INPUT } from './compactionTurn.js';

interface Settings {
  workspace: string;
  baseURL: string;
  sessionId: string;
  store: { sqlite: string } | { postgres: string; schema: string };
  killBeforeWrite?: number;
  killAfterWrite?: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const writes: string[] = [];

function countingStore(store: SessionStore): SessionStore {
  return {
    ...store,
    async append(sessionId, write) {
      if (writes.length + 1 === settings.killBeforeWrite) process.kill(process.pid, 'SIGKILL');
      await store.append(sessionId, write);
      const entries = write.entries.map((entry) =>
        entry.kind === 'started' ? `started ${entry.data.effect}` : entry.data.type,
      );
      writes.push([...entries, ...(write.checkpoint ? ['checkpoint'] : [])].join(' + '));
      if (writes.length === settings.killAfterWrite) process.kill(process.pid, 'SIGKILL');
    },
  };
}

const where = settings.store;
const store = countingStore(
  'sqlite' in where
    ? createSqliteSessionStore({ path: where.sqlite, durability: 'normal' })
    : createPostgresSessionStore({ connectionString: where.postgres, schema: where.schema }),
);
const agent = createAgent({
  workspace: settings.workspace,
  tools: [],
  autoCommit: false,
  compaction: COMPACTION,
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  store,
  sessionId: settings.sessionId,
});
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
const log = await store.entries(settings.sessionId);
const sent = log.some(
  (entry) =>
    entry.kind === 'event' &&
    entry.data.type === 'UserInput' &&
    entry.data.message.content === INPUT,
);
if (!sent) agent.send(INPUT);
await agent.waitUntilIdle({ timeoutMs: 20_000 });
await agent.recorded();
const result = {
  messages: agent.context.messages,
  writes,
  state: agent.state,
  stateValue: agent.stateValue,
  context: agent.context,
  log: await store.entries(settings.sessionId),
  loaded: await store.load(settings.sessionId),
};
await agent.shutdown({ drain: true });
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
