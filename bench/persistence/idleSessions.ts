/**
 * A session file holding many idle sessions, written fast: one session is stored through the
 * store (a short exchange, at rest), then its rows are copied under new ids in one transaction,
 * straight in SQLite — table by table, every table with a `session_id` column, so the copies are
 * whatever the store wrote. The store then reads them back like any other session.
 */
import Database from 'better-sqlite3';
import { createSqliteSessionStore } from '../../src/index.js';
import type { StoredHistory } from './storedHistory.js';
import { storeHistory } from './storedHistory.js';

/** The id of idle session `index`. */
export function idleSessionId(index: number): string {
  return `idle-${String(index).padStart(6, '0')}`;
}

/** Writes `count` copies of `history` into a new session file at `path`. */
export async function writeIdleSessions(
  path: string,
  history: StoredHistory,
  count: number,
): Promise<void> {
  const template = idleSessionId(0);
  const store = createSqliteSessionStore({ path, durability: 'normal' });
  await storeHistory(store, template, history);
  await store.close();

  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
        name: string;
      }>
    ).map(({ name }) => name);
    db.transaction(() => {
      db.exec(`CREATE TEMP TABLE copies (id TEXT NOT NULL)`);
      const insert = db.prepare('INSERT INTO copies (id) VALUES (?)');
      for (let index = 1; index < count; index++) insert.run(idleSessionId(index));
      for (const table of tables) {
        const columns = (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map(
          (column) => column.name,
        );
        if (!columns.includes('session_id')) continue;
        // The header names its session: the copy's names the copy.
        const values = columns.map((column) =>
          column === 'session_id'
            ? 'copies.id'
            : column === 'header'
              ? "json_set(t.header, '$.sessionId', copies.id)"
              : `t.${column}`,
        );
        db.prepare(
          `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${values.join(', ')} FROM ${table} AS t, copies WHERE t.session_id = ?`,
        ).run(template);
      }
      db.exec('DROP TABLE copies');
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
