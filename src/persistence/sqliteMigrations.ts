/**
 * The SQLite store's schema, as numbered migrations. A database records the version it is at
 * (`PRAGMA user_version`); opening it applies the missing migrations in one transaction, and a
 * database from a newer version of the package is refused rather than misread.
 */
import { AgentStatechartError } from '../machine/index.js';

/** What the migrations need of a connection (better-sqlite3's `Database`). */
export interface MigratableDatabase {
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<T>(fn: () => T): () => T;
}

/**
 * The migrations, in order; migration `n` (1-based) takes a database from version `n - 1` to `n`.
 * Never edit a migration that has shipped: add the next one.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: sessions, their logs, transcript records and one checkpoint per session.
  `
  CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    head INTEGER NOT NULL DEFAULT 0,
    epoch INTEGER NOT NULL DEFAULT 0,
    checkpoint_seq INTEGER,
    checkpoint_state TEXT,
    checkpoint_message_count INTEGER,
    checkpoint_context TEXT
  ) WITHOUT ROWID;
  CREATE TABLE entries (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE transcript (
    session_id TEXT NOT NULL,
    message_index INTEGER NOT NULL,
    refs TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, message_index)
  ) WITHOUT ROWID;
  `,
  // 2: listing sessions by recency without reading them all.
  `
  CREATE INDEX sessions_by_update ON sessions (updated_at DESC, session_id);
  `,
];

/**
 * Brings `db` to the latest schema version and returns the version it found. Throws
 * `STORE_FAILED` for a database written by a newer version of the package.
 *
 * @example
 * migrateSqlite(db); // 0 for a new file, 2 for one that is up to date
 */
export function migrateSqlite(
  db: MigratableDatabase,
  migrations: readonly string[] = SQLITE_MIGRATIONS,
): number {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > migrations.length) {
    throw new AgentStatechartError(
      'STORE_FAILED',
      `this session database is at schema version ${found}, newer than this package knows (${migrations.length}); upgrade agent-statechart to open it`,
    );
  }
  if (found === migrations.length) return found;
  db.transaction(() => {
    for (let version = found + 1; version <= migrations.length; version++) {
      db.exec(migrations[version - 1]!);
      db.pragma(`user_version = ${version}`);
    }
  })();
  return found;
}
