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
import { countingStore, type KillPoint, printWhenIdle } from './childSession.js';
import { actAsThePerson, noteTools } from './noteTurn.js';

interface Settings extends KillPoint {
  database: string;
  workspace: string;
  sideFile: string;
  baseURL: string;
  sessionId: string;
  /** Send this input once the session is open (the first process only). */
  input?: string;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const counted = countingStore(
  createSqliteSessionStore({ path: settings.database, durability: 'normal' }),
  settings,
);
const agent = createAgent({
  workspace: settings.workspace,
  tools: noteTools(settings.sideFile),
  // Mutating calls wait for a person; this process is that person.
  permissions: { mode: 'default' },
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  retryDelayScale: 0.05,
  store: counted.store,
  sessionId: settings.sessionId,
});
actAsThePerson(agent);
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
if (settings.input !== undefined) agent.send(settings.input);
await printWhenIdle(agent, counted, settings.sessionId);
