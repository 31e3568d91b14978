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
import { openChildSession, printWhenIdle } from '../crash/childSession.js';
import { COMPACTION, INPUT } from './compactionTurn.js';

const { settings, counted } = openChildSession();
const { store } = counted;
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
await printWhenIdle(agent, counted, settings.sessionId, async () => ({
  loaded: await store.load(settings.sessionId),
}));
