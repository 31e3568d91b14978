/**
 * A service's process holding a host over a session file, with no session loaded: run with
 * `--expose-gc` and the file's path; prints its heap (after a full collection) and RSS as JSON.
 * Everything it imports is loaded before the file is opened, so what differs between two files
 * is what the host and the store keep of them.
 */
import { createAgentHost, createReadFileTool, createSqliteSessionStore } from '../../src/index.js';

const path = process.argv[2];
if (path === undefined) throw new Error('idleHost: the session file is the first argument');

function collectedHeap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

const store = createSqliteSessionStore({ path });
const host = createAgentHost({
  store,
  workspace: process.cwd(),
  tools: [createReadFileTool()],
  autoCommit: false,
  anthropic: { apiKey: 'unused', baseURL: 'http://127.0.0.1:9' },
});
// What a service's session list shows: the most recent sessions, a page of them.
const listed = await store.list({ limit: 20 });
const heapUsed = collectedHeap();
const { rss } = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ heapUsed, rss, listed: listed.length, live: host.live().length })}\n`,
);
await host.close();
await store.close();
