/**
 * One process of the crash test: an agent on a SQLite session, answering approvals as a person
 * would. With `killBeforeWrite` / `killAfterWrite: k` it kills itself (SIGKILL) just before its
 * k-th write to the store, or the moment it has returned; otherwise it drives the session until it
 * is idle and prints the result.
 *
 * Run (the test bundles it first): node crashChild.mjs '<json settings>'
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, defineTool } from '../../../src/index.js';
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import type { SessionStore } from '../../../src/persistence/sessionStore.js';

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
        entry.kind === 'started'
          ? `started ${(entry.data as { effect: string }).effect}`
          : (entry.data as { type: string }).type,
      );
      writes.push([...entries, ...(write.checkpoint ? ['checkpoint'] : [])].join(' + '));
      if (writes.length === settings.killAfterWrite) process.kill(process.pid, 'SIGKILL');
    },
  };
}

const appendSide = defineTool({
  name: 'append_side',
  description: 'Appends a line to the side file (each call is one line: duplicates are countable).',
  input: z.object({ line: z.string() }),
  mutating: true,
  execute: async ({ line }) => {
    await appendFile(settings.sideFile, `${line}\n`);
    return `appended ${line}`;
  },
});

const readNotes = defineTool({
  name: 'read_notes',
  description: 'Reads notes.txt.',
  input: z.object({}),
  mutating: false,
  execute: async (_input, { workspace }) => readFile(join(workspace, 'notes.txt'), 'utf8'),
});

const store = countingStore(
  createSqliteSessionStore({ path: settings.database, durability: 'normal' }),
);
const agent = createAgent({
  workspace: settings.workspace,
  tools: [appendSide, readNotes],
  // Mutating calls wait for a person; this process is that person.
  permissions: { mode: 'default' },
  anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  retryDelayScale: 0.05,
  store,
  sessionId: settings.sessionId,
});
agent.on('approvalRequest', ({ call }) => agent.approve(call.id));
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
if (settings.input !== undefined) agent.send(settings.input);
await agent.waitUntilIdle({ timeoutMs: 20_000 });
await agent.shutdown({ drain: true });
await store.close();
process.stdout.write(
  `${JSON.stringify({ messages: agent.context.messages, writes, state: agent.state })}\n`,
);
