/**
 * One process of the crash test: an agent on a SQLite session running the note turn
 * (noteTurn.ts), answering as the person would. With `killBeforeWrite` / `killAfterWrite: k` it
 * kills itself (SIGKILL) just before its k-th write to the store, or the moment it has returned;
 * otherwise it drives the session until it is idle and prints the result: the transcript, its
 * writes, the chart as it stands and the session's whole log.
 *
 * Run (the test bundles it first): node crashChild.mjs '<json settings>'
 */
import { createAgent } from '../../../src/index.js';
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import type { SessionStore } from '../../../src/persistence/sessionStore.js';
import { actAsThePerson, noteTools } from './noteTurn.js';

interface Settings {
  database: string;
  workspace: string;
  sideFile: string;
  baseURL: string;
  sessionId: string;
  /** Send this input once the session is open (the first process only). */
  input?: string;
  /** Die just before the store takes this write (its work is done, nothing of it is stored). */
  killBeforeWrite?: number;
  /** Die just after this write is stored. */
  killAfterWrite?: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const writes: string[] = [];

/** The store, counting its writes, and dying just before or just after the chosen one. */
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

const store = countingStore(
  createSqliteSessionStore({ path: settings.database, durability: 'normal' }),
);
const agent = createAgent({
  workspace: settings.workspace,
  tools: noteTools(settings.sideFile),
  // Mutating calls wait for a person; this process is that person.
  permissions: { mode: 'default' },
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  retryDelayScale: 0.05,
  store,
  sessionId: settings.sessionId,
});
actAsThePerson(agent);
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
if (settings.input !== undefined) agent.send(settings.input);
await agent.waitUntilIdle({ timeoutMs: 20_000 });
await agent.recorded();
const result = {
  messages: agent.context.messages,
  writes,
  state: agent.state,
  stateValue: agent.stateValue,
  context: agent.context,
  log: await store.entries(settings.sessionId),
};
await agent.shutdown({ drain: true });
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
