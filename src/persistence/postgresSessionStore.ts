/**
 * The shared session store: PostgreSQL, through the `pg` driver, for services that run several
 * workers. Every append is one transaction that locks the session's row first (`SELECT … FOR
 * UPDATE`) and checks both the writer's epoch and the head under that lock, so a writer that lost
 * the session and two writers racing after the same head are refused, and a connection lost
 * mid-write leaves the log as it was before the write.
 */
import { AgentStatechartError } from '../machine/index.js';
import { migratePostgres, quoteSchemaName } from './postgresMigrations.js';
import {
  asStoreFailure,
  inTransaction,
  openPostgresPool,
  type PostgresPool,
  type PostgresPoolClient,
} from './postgresPool.js';
import type { SessionHeader, SessionStore, SessionWrite, StoredSession } from './sessionStore.js';
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
  toStoredJson,
  toStoredWrite,
} from './storeRules.js';

/**
 * Options of {@link createPostgresSessionStore}: a `connectionString` (the store opens and closes
 * its own pool) or a `pool` you own (the store never ends it).
 *
 * @example
 * const options: PostgresSessionStoreOptions = { connectionString: process.env.DATABASE_URL!, schema: 'agents' };
 */
export interface PostgresSessionStoreOptions {
  /** `postgresql://user:password@host:port/database`; see `pg`'s documentation for the rest. */
  connectionString?: string;
  /** A pool to use instead (`new pg.Pool(…)`); `close()` leaves it open. */
  pool?: PostgresPool;
  /** The schema holding the store's tables, created if missing. Default `agent_statechart`. */
  schema?: string;
  /** Connections in the store's own pool. Default 10. */
  poolSize?: number;
}

/**
 * The PostgreSQL store: a {@link SessionStore}, plus an append that also runs the caller's own
 * statements in its transaction, for a driver that keeps more of a session's state in the same
 * database (its inbox, for one) and must change it together with the log.
 *
 * @example
 * await store.appendWith('alice-1', write, (client) => client.query('UPDATE …'));
 */
export interface PostgresSessionStore extends SessionStore {
  /** The schema the store's tables are in. */
  readonly schema: string;
  /**
   * Appends like `append`, and runs `alongside` in the same transaction after the write (the
   * session row is locked then): both commit, or neither.
   */
  appendWith(
    sessionId: string,
    write: SessionWrite,
    alongside: (client: PostgresPoolClient) => Promise<unknown>,
  ): Promise<void>;
  /**
   * Claims like `claim` if `before`, run first in the same transaction, resolves `true`; resolves
   * `undefined`, with no claim made, if it resolves `false`.
   */
  claimWith(
    sessionId: string,
    before: (client: PostgresPoolClient) => Promise<boolean>,
  ): Promise<number | undefined>;
}

/**
 * A session store in PostgreSQL: one schema, created and migrated on first use, shared safely by
 * any number of processes. `pg` is an optional peer dependency, loaded when a store opens its own
 * pool.
 *
 * @example
 * const store = createPostgresSessionStore({ connectionString: process.env.DATABASE_URL! });
 * const epoch = await store.claim('alice-1');
 * await store.append('alice-1', { after: head, epoch, entries });
 */
export function createPostgresSessionStore(
  options: PostgresSessionStoreOptions,
): PostgresSessionStore {
  options ??= {};
  const schema = options.schema ?? 'agent_statechart';
  const q = quoteSchemaName(schema);
  const pool = options.pool ?? ownPool(options);
  let ready: Promise<unknown> | undefined;
  let closed = false;

  /** Runs `work` once the schema is migrated, with driver failures as `STORE_FAILED`. */
  function run<T>(work: () => Promise<T>): Promise<T> {
    return asStoreFailure('the PostgreSQL session store', async () => {
      if (closed) throw new AgentStatechartError('STORE_FAILED', 'this session store is closed');
      ready ??= migratePostgres(pool, schema).catch((error: unknown) => {
        ready = undefined; // the next call tries again
        throw error;
      });
      await ready;
      return work();
    });
  }

  function claimWith(
    sessionId: string,
    before: (client: PostgresPoolClient) => Promise<boolean>,
  ): Promise<number | undefined> {
    checkSessionId(sessionId);
    return run(() =>
      inTransaction(pool, async (client) => {
        if (!(await before(client))) return undefined;
        const { rows } = await client.query(
          `UPDATE ${q}.sessions SET epoch = epoch + 1 WHERE session_id = $1 RETURNING epoch`,
          [sessionId],
        );
        const row = rows[0] as { epoch: string } | undefined;
        if (row === undefined) throw sessionNotFound(sessionId);
        return Number(row.epoch);
      }),
    );
  }

  async function writeAppend(
    client: PostgresPoolClient,
    sessionId: string,
    write: SessionWrite,
    stored: ReturnType<typeof storedWrite>,
  ): Promise<void> {
    const { rows } = await client.query(
      `SELECT head, epoch, updated_at FROM ${q}.sessions WHERE session_id = $1 FOR UPDATE`,
      [sessionId],
    );
    // The epoch is a bigint, which the driver hands over as text.
    const row = rows[0] as { head: number; epoch: string; updated_at: number } | undefined;
    if (row === undefined) throw sessionNotFound(sessionId);
    checkWriteAgainst(sessionId, write, { head: row.head, epoch: Number(row.epoch) });
    if (stored.entries.seq.length > 0) {
      await client.query(
        `INSERT INTO ${q}.entries (session_id, seq, at, kind, data)
         SELECT $1, * FROM unnest($2::integer[], $3::double precision[], $4::text[], $5::text[])`,
        [
          sessionId,
          stored.entries.seq,
          stored.entries.at,
          stored.entries.kind,
          stored.entries.data,
        ],
      );
    }
    if (stored.transcript.index.length > 0) {
      // Arrays of arrays must be rectangular in PostgreSQL: each record's refs travel as text.
      await client.query(
        `INSERT INTO ${q}.transcript (session_id, message_index, refs, body)
         SELECT $1, i, r::integer[], b FROM unnest($2::integer[], $3::text[], $4::text[]) AS t (i, r, b)
         ON CONFLICT (session_id, message_index) DO UPDATE SET refs = excluded.refs, body = excluded.body`,
        [sessionId, stored.transcript.index, stored.transcript.refs, stored.transcript.body],
      );
    }
    const checkpoint = stored.checkpoint;
    if (checkpoint !== undefined) {
      await client.query(
        `UPDATE ${q}.sessions SET checkpoint_seq = $2, checkpoint_state = $3, checkpoint_message_count = $4, checkpoint_context = $5 WHERE session_id = $1`,
        [sessionId, checkpoint.seq, checkpoint.state, checkpoint.messageCount, checkpoint.context],
      );
    }
    const head = write.after + write.entries.length;
    const updatedAt = write.entries.at(-1)?.at ?? row.updated_at;
    await client.query(
      `UPDATE ${q}.sessions SET head = $2, updated_at = $3 WHERE session_id = $1`,
      [sessionId, head, updatedAt],
    );
  }

  async function readSession(
    client: PostgresPoolClient,
    sessionId: string,
  ): Promise<StoredSession | undefined> {
    const { rows } = await client.query(`SELECT * FROM ${q}.sessions WHERE session_id = $1`, [
      sessionId,
    ]);
    const row = rows[0] as SessionRow | undefined;
    if (row === undefined) return undefined;
    const { header, checkpoint } = sessionFromRow(row);
    const records = await client.query(
      `SELECT message_index, refs, body FROM ${q}.transcript WHERE session_id = $1 AND message_index < $2 ORDER BY message_index`,
      [sessionId, checkpoint?.messageCount ?? 0],
    );
    const transcript = transcriptFromRows(
      sessionId,
      records.rows as RecordRow[],
      checkpoint?.messageCount ?? 0,
    );
    const { refs, after } = neededEntries(checkpoint, transcript);
    const referenced = [...refs].filter((seq) => seq <= after);
    const entryRows = (
      await client.query(
        `SELECT seq, at, kind, data FROM ${q}.entries
         WHERE session_id = $1 AND (seq = ANY($2::integer[]) OR seq > $3) ORDER BY seq`,
        [sessionId, referenced, after],
      )
    ).rows as EntryRow[];
    if (entryRows.filter((entry) => entry.seq <= after).length !== referenced.length) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `session '${sessionId}' has lost entries its transcript refers to`,
      );
    }
    return {
      header,
      head: row.head,
      checkpoint,
      transcript,
      entries: entriesFromRows(sessionId, entryRows),
    };
  }

  return {
    async create(header: SessionHeader) {
      checkHeader(header);
      const text = toStoredJson(header, 'the session header');
      await run(async () => {
        try {
          await pool.query(
            `INSERT INTO ${q}.sessions (session_id, header, created_at, updated_at) VALUES ($1, $2, $3, $3)`,
            [header.sessionId, text, header.createdAt],
          );
        } catch (error) {
          if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) {
            throw sessionExists(header.sessionId);
          }
          throw error;
        }
      });
    },

    async claim(sessionId) {
      return (await claimWith(sessionId, () => Promise.resolve(true)))!;
    },

    claimWith,

    append(sessionId, write) {
      return this.appendWith(sessionId, write, () => Promise.resolve());
    },

    async appendWith(sessionId, write, alongside) {
      checkSessionId(sessionId);
      checkWrite(write);
      // Everything is turned to text before the transaction: a bad value writes nothing.
      const stored = storedWrite(write);
      await run(() =>
        inTransaction(pool, async (client) => {
          await writeAppend(client, sessionId, write, stored);
          await alongside(client);
        }),
      );
    },

    schema,

    async load(sessionId) {
      checkSessionId(sessionId);
      // One snapshot for the row, the records and the entries, whatever commits meanwhile.
      return run(() =>
        inTransaction(
          pool,
          (client) => readSession(client, sessionId),
          'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        ),
      );
    },

    async entries(sessionId, options = {}) {
      checkSessionId(sessionId);
      return run(async () => {
        const { rows } = await pool.query(
          `SELECT s.session_id, e.seq, e.at, e.kind, e.data
           FROM ${q}.sessions s
           LEFT JOIN LATERAL (
             SELECT seq, at, kind, data FROM ${q}.entries
             WHERE session_id = s.session_id AND seq > $2 ORDER BY seq LIMIT $3
           ) e ON true
           WHERE s.session_id = $1 ORDER BY e.seq`,
          [sessionId, options.after ?? 0, options.limit ?? null],
        );
        if (rows.length === 0) throw sessionNotFound(sessionId);
        const found = (rows as Array<EntryRow | { seq: null }>).filter(
          (row): row is EntryRow => row.seq !== null,
        );
        return entriesFromRows(sessionId, found);
      });
    },

    async list(options = {}) {
      return run(async () => {
        const { rows } = await pool.query(
          `SELECT session_id, header, created_at, updated_at, head, checkpoint_state, checkpoint_message_count
           FROM ${q}.sessions ORDER BY updated_at DESC, session_id COLLATE "C" LIMIT $1`,
          [options.limit ?? null],
        );
        return (rows as SessionRow[]).map(summaryFromRow);
      });
    },

    async delete(sessionId) {
      checkSessionId(sessionId);
      return run(async () => {
        const { rowCount } = await pool.query(`DELETE FROM ${q}.sessions WHERE session_id = $1`, [
          sessionId,
        ]);
        return (rowCount ?? 0) > 0;
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      // A store that was never used may still be migrating: let that finish first.
      await ready?.catch(() => undefined);
      if (options.pool === undefined) await pool.end();
    },
  };
}

/** PostgreSQL's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = '23505';

function ownPool(options: PostgresSessionStoreOptions): PostgresPool {
  if (typeof options.connectionString !== 'string' || options.connectionString.length === 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'createPostgresSessionStore needs a connectionString or a pool',
    );
  }
  const size = options.poolSize ?? 10;
  if (!Number.isInteger(size) || size < 1) {
    throw new AgentStatechartError('INVALID_OPTION', `poolSize must be at least 1; got ${size}`);
  }
  return openPostgresPool(options.connectionString, size);
}

/** A write's values as the columns take them, one array per column. */
function storedWrite(write: SessionWrite) {
  const { entries, transcript, checkpoint } = toStoredWrite(write);
  return {
    entries: {
      seq: entries.map((entry) => entry.seq),
      at: entries.map((entry) => entry.at),
      kind: entries.map((entry) => entry.kind),
      data: entries.map((entry) => entry.data),
    },
    transcript: {
      index: transcript.map((record) => record.index),
      refs: transcript.map((record) => `{${record.refs.join(',')}}`),
      body: transcript.map((record) => record.body),
    },
    checkpoint,
  };
}
