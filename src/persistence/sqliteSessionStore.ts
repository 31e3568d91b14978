/**
 * The embedded session store: one SQLite file (WAL), through `better-sqlite3`. Every write is one
 * transaction that takes the write lock first, so two processes sharing a file cannot both append
 * after the same head, and a process killed mid-write leaves the log as it was before the write.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { AgentStatechartError, errorMessage } from '../machine/index.js';
import type { SessionHeader, SessionStore, SessionWrite, StoredSession } from './sessionStore.js';
import { migrateSqlite } from './sqliteMigrations.js';
import {
  checkWriteAgainst,
  entriesFromRows,
  sessionFromRow,
  summaryFromRow,
  transcriptFromRows,
  type EntryRow,
  type RecordRow,
  type SessionRow,
} from './storedRows.js';
import {
  checkHeader,
  checkSessionId,
  checkWrite,
  neededEntries,
  sessionExists,
  sessionNotFound,
  settleNow,
  storeFailure,
  toStoredJson,
  toStoredWrite,
  type StoredWriteText,
} from './storeRules.js';
import { prepareStoreFolder } from './storeFolder.js';

/**
 * Options of {@link createSqliteSessionStore}.
 *
 * @example
 * const options: SqliteSessionStoreOptions = { path: '.agent-statechart/sessions.db' };
 */
export interface SqliteSessionStoreOptions {
  /**
   * The database file (created with its folder if missing; a folder named `.agent-statechart`
   * ignores itself in git), or `':memory:'`.
   */
  path: string;
  /**
   * `'full'` (default): a write survives a power cut once `append` resolves. `'normal'`: a write
   * survives the process being killed, not the machine losing power; fewer disk syncs.
   */
  durability?: 'full' | 'normal';
  /** How long a write waits for another process holding the file's write lock. Default 5 s. */
  busyTimeoutMs?: number;
}

type Database = BetterSqlite3.Database;

/**
 * A session store in one SQLite file: the embedded default. `better-sqlite3` is loaded when the
 * first store is created, not when the package is imported.
 *
 * @example
 * const store = createSqliteSessionStore({ path: '.agent-statechart/sessions.db' });
 * const agent = createAgent({ store, sessionId: 'alice-1' });
 */
export function createSqliteSessionStore(options: SqliteSessionStoreOptions): SessionStore {
  const db = openDatabase(options);
  const statements = prepare(db);

  const sessionRow = (sessionId: string): SessionRow & { epoch: number } => {
    const row = statements.session.get(sessionId) as (SessionRow & { epoch: number }) | undefined;
    if (row === undefined) throw sessionNotFound(sessionId);
    return row;
  };

  const append = db.transaction(
    (sessionId: string, write: SessionWrite, stored: StoredWriteText) => {
      const row = sessionRow(sessionId);
      checkWriteAgainst(sessionId, write, row);
      for (const entry of stored.entries) {
        statements.insertEntry.run(sessionId, entry.seq, entry.at, entry.kind, entry.data);
      }
      for (const record of stored.transcript) {
        statements.upsertRecord.run(
          sessionId,
          record.index,
          JSON.stringify(record.refs),
          record.body,
        );
      }
      const checkpoint = stored.checkpoint;
      if (checkpoint !== undefined) {
        statements.setCheckpoint.run(
          checkpoint.seq,
          checkpoint.state,
          checkpoint.messageCount,
          checkpoint.context,
          sessionId,
        );
      }
      const head = write.after + write.entries.length;
      const updatedAt = write.entries.at(-1)?.at ?? row.updated_at;
      statements.setHead.run(head, updatedAt, sessionId);
    },
  );

  const load = db.transaction((sessionId: string): StoredSession | undefined => {
    const row = statements.session.get(sessionId) as SessionRow | undefined;
    if (row === undefined) return undefined;
    const what = `session '${sessionId}'`;
    const { header, checkpoint } = sessionFromRow(row);
    const transcript = transcriptFromRows(
      sessionId,
      statements.records.all(sessionId, checkpoint?.messageCount ?? 0) as RecordRow[],
      checkpoint?.messageCount ?? 0,
    );
    const { refs, after } = neededEntries(checkpoint, transcript);
    const referenced = [...refs].filter((seq) => seq <= after).sort((a, b) => a - b);
    const entryRows: EntryRow[] = [];
    // Referenced entries in chunks (SQLite caps bound parameters), then the tail in one range.
    for (let start = 0; start < referenced.length; start += 500) {
      const chunk = referenced.slice(start, start + 500);
      entryRows.push(
        ...(statements.entriesIn(chunk.length).all(sessionId, ...chunk) as EntryRow[]),
      );
    }
    if (entryRows.length !== referenced.length) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `${what} has lost entries its transcript refers to`,
      );
    }
    entryRows.push(...(statements.entriesAfter.all(sessionId, after, -1) as EntryRow[]));
    return {
      header,
      head: row.head,
      checkpoint,
      transcript,
      entries: entriesFromRows(sessionId, entryRows),
    };
  });

  return {
    create(header: SessionHeader) {
      return settleNow(() => {
        checkHeader(header);
        try {
          statements.insertSession.run(
            header.sessionId,
            toStoredJson(header, 'the session header'),
            header.createdAt,
            header.createdAt,
          );
        } catch (error) {
          if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
            throw sessionExists(header.sessionId);
          }
          throw storeFailure(SQLITE_STORE, error);
        }
      });
    },

    claim(sessionId) {
      return settleNow(() => {
        checkSessionId(sessionId);
        const row = statements.claim.get(sessionId) as { epoch: number } | undefined;
        if (row === undefined) throw sessionNotFound(sessionId);
        return row.epoch;
      });
    },

    append(sessionId, write) {
      return settleNow(() => {
        checkSessionId(sessionId);
        checkWrite(write);
        // Everything is turned to text before the transaction: a bad value writes nothing.
        const stored = toStoredWrite(write);
        guard(() => append.immediate(sessionId, write, stored));
      });
    },

    load(sessionId) {
      return settleNow(() => {
        checkSessionId(sessionId);
        return guard(() => load.deferred(sessionId));
      });
    },

    entries(sessionId, options = {}) {
      return settleNow(() => {
        checkSessionId(sessionId);
        sessionRow(sessionId);
        const rows = statements.entriesAfter.all(
          sessionId,
          options.after ?? 0,
          options.limit ?? -1,
        ) as EntryRow[];
        return entriesFromRows(sessionId, rows);
      });
    },

    list(options = {}) {
      return settleNow(() => {
        return (statements.list.all(options.limit ?? -1) as SessionRow[]).map(summaryFromRow);
      });
    },

    delete(sessionId) {
      return settleNow(() => {
        checkSessionId(sessionId);
        return guard(() => statements.deleteSession(sessionId));
      });
    },

    close() {
      return settleNow(() => {
        if (db.open) db.close();
      });
    },
  };
}

/** What a `STORE_FAILED` of this store names. */
const SQLITE_STORE = 'the SQLite session store';

/** Runs a database call, turning driver failures (disk full, locked) into `STORE_FAILED`. */
function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw storeFailure(SQLITE_STORE, error);
  }
}

function openDatabase(options: SqliteSessionStoreOptions): Database {
  if (typeof options?.path !== 'string' || options.path.length === 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      "createSqliteSessionStore needs a path (or ':memory:')",
    );
  }
  const memory = options.path === ':memory:';
  const path = memory ? options.path : resolve(options.path);
  let Driver: typeof BetterSqlite3;
  try {
    Driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  } catch (error) {
    throw new AgentStatechartError(
      'MISSING_PEER_DEPENDENCY',
      `the SQLite session store needs better-sqlite3, which did not load (${errorMessage(error)}); run \`npm install better-sqlite3\` (it builds with python3, make and a C++ compiler when no prebuilt binary fits)`,
      { cause: error },
    );
  }
  try {
    if (!memory) prepareStoreFolder(path);
    const db = new Driver(path, { timeout: options.busyTimeoutMs ?? 5_000 });
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
    return db;
  } catch (error) {
    if (error instanceof AgentStatechartError) throw error;
    throw new AgentStatechartError(
      'STORE_FAILED',
      `cannot open the session database at ${path}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

function prepare(db: Database) {
  const entriesIn = new Map<number, BetterSqlite3.Statement>();
  const deleteAll = db.transaction((sessionId: string) => {
    db.prepare('DELETE FROM entries WHERE session_id = ?').run(sessionId);
    db.prepare('DELETE FROM transcript WHERE session_id = ?').run(sessionId);
    return db.prepare('DELETE FROM sessions WHERE session_id = ?').run(sessionId).changes > 0;
  });
  return {
    session: db.prepare('SELECT * FROM sessions WHERE session_id = ?'),
    insertSession: db.prepare(
      'INSERT INTO sessions (session_id, header, created_at, updated_at) VALUES (?, ?, ?, ?)',
    ),
    claim: db.prepare('UPDATE sessions SET epoch = epoch + 1 WHERE session_id = ? RETURNING epoch'),
    insertEntry: db.prepare(
      'INSERT INTO entries (session_id, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)',
    ),
    upsertRecord: db.prepare(
      'INSERT OR REPLACE INTO transcript (session_id, message_index, refs, body) VALUES (?, ?, ?, ?)',
    ),
    setCheckpoint: db.prepare(
      'UPDATE sessions SET checkpoint_seq = ?, checkpoint_state = ?, checkpoint_message_count = ?, checkpoint_context = ? WHERE session_id = ?',
    ),
    setHead: db.prepare('UPDATE sessions SET head = ?, updated_at = ? WHERE session_id = ?'),
    records: db.prepare(
      'SELECT message_index, refs, body FROM transcript WHERE session_id = ? AND message_index < ? ORDER BY message_index',
    ),
    entriesAfter: db.prepare(
      'SELECT seq, at, kind, data FROM entries WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    entriesIn(count: number): BetterSqlite3.Statement {
      let statement = entriesIn.get(count);
      if (statement === undefined) {
        statement = db.prepare(
          `SELECT seq, at, kind, data FROM entries WHERE session_id = ? AND seq IN (${Array(count).fill('?').join(', ')}) ORDER BY seq`,
        );
        entriesIn.set(count, statement);
      }
      return statement;
    },
    list: db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, session_id LIMIT ?'),
    deleteSession: (sessionId: string) => deleteAll(sessionId),
  };
}
