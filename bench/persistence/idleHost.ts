/**
 * A service's process holding a host over a session file after its sessions went idle: run with
 * `--expose-gc`, the file's path and how many sessions to touch; the host loads that many
 * sessions (its first `agent(id)` call opens each from the store), lets them go idle and drop
 * out of memory (a short `idleMs`), lists a page of sessions as a service's index would, and
 * prints its heap (after full collections) and RSS as JSON. Both files are touched the same way,
 * so what differs between them is what the host and the store keep of the sessions stored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createAgentHost, createReadFileTool, createSqliteSessionStore } from '../../src/index.js';
import { idleSessionId } from './idleSessions.js';

const path = process.argv[2];
const touched = Number(process.argv[3] ?? 0);
if (path === undefined) throw new Error('idleHost: the session file is the first argument');

function collectedHeap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

/** Long enough for a session to finish loading, short enough to wait for. */
const IDLE_MS = 20;

const store = createSqliteSessionStore({ path });
const host = createAgentHost({
  store,
  idleMs: IDLE_MS,
  workspace: process.cwd(),
  tools: [createReadFileTool()],
  autoCommit: false,
  // Never called: every session is at rest.
  anthropic: { apiKey: 'unused', baseURL: 'http://127.0.0.1:9' },
});
let loadedMessages = 0;
for (let index = 0; index < touched; index++) {
  const agent = await host.agent(idleSessionId(index));
  loadedMessages += agent.context.messages.length;
}
const deadline = Date.now() + 10_000;
while (host.live().length > 0) {
  if (Date.now() > deadline) throw new Error('idleHost: idle sessions stayed in memory');
  await sleep(IDLE_MS);
}
// What a service's session index shows: the most recent sessions, a page of them.
const listed = await store.list({ limit: 20 });
const heapUsed = collectedHeap();
const { rss } = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ heapUsed, rss, listed: listed.length, touched, loadedMessages, live: host.live().length })}\n`,
);
await host.close();
await store.close();
