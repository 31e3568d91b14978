/**
 * A child process writing to a SQLite session file, for the tests that need a second process or
 * a process killed mid-write. Arguments: the database file, the session id, the mode, a writer
 * name, and how many writes to make (`race` only).
 * - `race`: appends one entry at a time after the head it reads, taking a conflict as "read
 *   again", and prints how many conflicts it met;
 * - `bulk`: appends large writes (many entries each) forever, printing each head it committed.
 */
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import { AgentStatechartError } from '../../../src/machine/agentStatechartError.js';
import { event, userInput } from '../storedEntries.js';

const [path, sessionId, mode, writer, count] = process.argv.slice(2) as [
  string,
  string,
  'race' | 'bulk',
  string,
  string,
];
const store = createSqliteSessionStore({ path, durability: 'normal', busyTimeoutMs: 30_000 });

async function headOf(): Promise<number> {
  const session = await store.load(sessionId);
  if (session === undefined) throw new Error(`no session ${sessionId}`);
  return session.head;
}

if (mode === 'race') {
  let conflicts = 0;
  for (let i = 0; i < Number(count);) {
    const head = await headOf();
    try {
      await store.append(sessionId, {
        after: head,
        entries: [event(head + 1, userInput(`${writer} ${i}`), Date.now())],
      });
      i++;
    } catch (error) {
      if (!(error instanceof AgentStatechartError) || error.code !== 'SESSION_CONFLICT')
        throw error;
      conflicts++;
    }
  }
  process.stdout.write(`${JSON.stringify({ conflicts })}\n`);
} else {
  const padding = 'x'.repeat(64 * 1024);
  for (let write = 0; ; write++) {
    const head = await headOf();
    const entries = Array.from({ length: 16 }, (_, k) =>
      event(head + k + 1, userInput(`write ${write}, entry ${k}: ${padding}`), Date.now()),
    );
    await store.append(sessionId, { after: head, entries });
    process.stdout.write(`${head + entries.length}\n`);
  }
}
