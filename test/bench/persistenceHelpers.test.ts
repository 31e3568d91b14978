/**
 * The persistence bench's helpers measure what they say: the durable turn adds the four
 * messages its new content counts, the counting store counts exactly the JSON the store keeps,
 * a recorded history reopens from a SQLite file as the same transcript, and the idle-session
 * file holds that many readable sessions, each under its own id. Small sizes: no timing here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countingStore, totalBytes } from '../../bench/persistence/countingStore.js';
import { durableTurn, newContentBytes, turnMessages } from '../../bench/persistence/durableTurn.js';
import { idleSessionId, writeIdleSessions } from '../../bench/persistence/idleSessions.js';
import { runDurableTurn } from '../../bench/persistence/sessionCoreTurn.js';
import {
  DURABLE_CONFIG,
  recordHistory,
  writeHistoryFile,
} from '../../bench/persistence/storedHistory.js';
import {
  createMemorySessionStore,
  createSqliteSessionStore,
  SessionCore,
} from '../../src/index.js';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});
async function scratchFile(name: string): Promise<string> {
  directory ??= await mkdtemp(join(tmpdir(), 'persistence-bench-'));
  return join(directory, name);
}

describe('the persistence bench helpers', () => {
  it('a durable turn adds the four messages its new content counts, and the counting store counts what the store keeps', async () => {
    const store = countingStore(createMemorySessionStore());
    const session = await SessionCore.open(store, 's', { config: DURABLE_CONFIG });
    const script = durableTurn(7);
    await runDurableTurn(session, script);

    const messages = session.core.context.messages;
    expect(messages).toEqual(turnMessages(script));
    expect(newContentBytes(script)).toBe(messages.reduce((sum, m) => sum + jsonBytes(m), 0));

    const stored = await store.load('s');
    const entries = await store.entries('s');
    const kept =
      entries.reduce((sum, entry) => sum + jsonBytes(entry), 0) +
      (stored?.transcript ?? []).reduce((sum, record) => sum + jsonBytes(record), 0) +
      jsonBytes(stored?.checkpoint);
    expect(totalBytes(store.bytes)).toBe(kept);
    expect(store.bytes.writes).toBe(7);
    expect(store.bytes.checkpoint).toBe(jsonBytes(stored?.checkpoint));
  });

  it('a recorded history reopens from its SQLite file as the same transcript, under every id', async () => {
    const history = await recordHistory(10);
    expect(history.messages).toHaveLength(10);
    const path = await scratchFile('history.db');
    await writeHistoryFile(path, history, ['a', 'b']);
    const store = createSqliteSessionStore({ path });
    try {
      for (const id of ['a', 'b']) {
        const session = await SessionCore.open(store, id, {
          config: DURABLE_CONFIG,
          mustExist: true,
        });
        expect(session.core.context.messages).toEqual(history.messages);
        expect(session.resume).toBeUndefined();
      }
    } finally {
      await store.close();
    }
  });

  it('the idle-session file holds that many sessions at rest, each reading back under its own id', async () => {
    const history = await recordHistory(2);
    const path = await scratchFile('idle.db');
    await writeIdleSessions(path, history, 5);
    const store = createSqliteSessionStore({ path });
    try {
      const listed = await store.list();
      expect(listed.map((summary) => summary.sessionId).sort()).toEqual(
        [0, 1, 2, 3, 4].map(idleSessionId),
      );
      const last = await SessionCore.open(store, idleSessionId(4), {
        config: DURABLE_CONFIG,
        mustExist: true,
      });
      expect(last.core.context.messages).toEqual(history.messages);
      expect((await store.load(idleSessionId(4)))?.header.sessionId).toBe(idleSessionId(4));
    } finally {
      await store.close();
    }
  });
});
