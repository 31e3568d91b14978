/**
 * The SQLite store passes the conformance suite on a real file, and keeps a compacted session
 * as every store does. What only a file shows (two
 * processes, a kill mid-write, migrations) is in `sqliteFile.test.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqliteSessionStore } from '../../src/persistence/sqliteSessionStore.js';
import { describeCompactedSession } from './compactedSessionSuite.js';
import { describeSessionStore } from './sessionStoreConformance.js';

let directory: string | undefined;
let file = '';

describeSessionStore('the SQLite store', {
  async open() {
    directory = await mkdtemp(join(tmpdir(), 'sqlite-store-'));
    file = join(directory, 'sessions.db');
    return createSqliteSessionStore({ path: file, durability: 'normal' });
  },
  async corrupt(_store, sessionId, what) {
    const db = new Database(file);
    if (what === 'entry') {
      db.prepare(
        'UPDATE entries SET data = \'{"type": "Use\' WHERE session_id = ? AND seq = 1',
      ).run(sessionId);
    } else {
      db.prepare("UPDATE sessions SET checkpoint_context = 'not json' WHERE session_id = ?").run(
        sessionId,
      );
    }
    db.close();
  },
  async cleanup() {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  },
});

describeCompactedSession('the SQLite store', {
  async open() {
    directory = await mkdtemp(join(tmpdir(), 'sqlite-compacted-'));
    return createSqliteSessionStore({ path: join(directory, 'sessions.db'), durability: 'normal' });
  },
  async cleanup() {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  },
});
