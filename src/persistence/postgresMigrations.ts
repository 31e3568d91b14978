/**
 * The PostgreSQL store's schema, as numbered migrations inside one schema of the caller's
 * choosing. The schema records the versions applied (`schema_migrations`); opening a store
 * applies the missing ones, each in its own transaction, and refuses a schema from a newer
 * version of the package rather than misread it. Workers that start together serialise on a
 * transaction-scoped advisory lock, so each migration runs once and none sees a half-built schema.
 */
import { AgentStatechartError } from '../machine/index.js';
import { inTransaction, type PostgresPool } from './postgresPool.js';

/**
 * A migration: the SQL that takes a schema from version `n - 1` to `n`, given the schema's quoted
 * name. Plain transactional DDL only (no `CREATE INDEX CONCURRENTLY`, which cannot run in a
 * transaction). Never edit a migration that has shipped: add the next one.
 */
export type PostgresMigration = (schema: string) => string;

/**
 * The migrations, in order. Values are stored as JSON text, not `jsonb`: what a writer stored is
 * what a reader gets back, byte for byte (`jsonb` reorders keys, drops duplicates and refuses a
 * `\u0000` escape), and a value that cannot be parsed is reported as corrupt, never dropped.
 * Times are milliseconds as `double precision`, which holds them exactly and reads back as a
 * number, as every store returns them.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  // 1: sessions, their logs, transcript records and one checkpoint per session.
  (schema) => `
  CREATE TABLE ${schema}.sessions (
    session_id text PRIMARY KEY,
    header text NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    head integer NOT NULL DEFAULT 0,
    epoch bigint NOT NULL DEFAULT 0,
    checkpoint_seq integer,
    checkpoint_state text,
    checkpoint_message_count integer,
    checkpoint_context text
  );
  CREATE TABLE ${schema}.entries (
    session_id text NOT NULL REFERENCES ${schema}.sessions ON DELETE CASCADE,
    seq integer NOT NULL,
    at double precision NOT NULL,
    kind text NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE TABLE ${schema}.transcript (
    session_id text NOT NULL REFERENCES ${schema}.sessions ON DELETE CASCADE,
    message_index integer NOT NULL,
    refs integer[] NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (session_id, message_index)
  );
  `,
  // 2: listing sessions by recency without reading them all.
  (schema) => `
  CREATE INDEX sessions_by_update ON ${schema}.sessions (updated_at DESC, session_id);
  `,
  // 3: what many workers share: each session's inbox (inputs numbered per session, and how far
  // its driver has taken them), and the workers alive.
  (schema) => `
  CREATE TABLE ${schema}.inbox (
    session_id text NOT NULL REFERENCES ${schema}.sessions ON DELETE CASCADE,
    seq integer NOT NULL,
    at double precision NOT NULL,
    input text NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  ALTER TABLE ${schema}.sessions ADD COLUMN inbox_taken integer NOT NULL DEFAULT 0;
  CREATE TABLE ${schema}.executors (
    executor_id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now()
  );
  `,
  // 4: the key a caller may give an input, unique within its session, so that a send retried
  // with the same key finds the input it stored instead of storing it again.
  (schema) => `
  ALTER TABLE ${schema}.inbox ADD COLUMN idempotency_key text;
  CREATE UNIQUE INDEX inbox_by_idempotency_key ON ${schema}.inbox (session_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
  `,
];

/** The longest identifier PostgreSQL keeps whole (NAMEDATALEN - 1). */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * `schema` as a quoted identifier, after checking it: 1 to 63 letters, digits and underscores,
 * not starting with a digit. Throws `INVALID_OPTION` otherwise.
 *
 * @example
 * quoteSchemaName('agent_statechart'); // '"agent_statechart"'
 */
export function quoteSchemaName(schema: unknown): string {
  if (
    typeof schema !== 'string' ||
    schema.length > MAX_IDENTIFIER_LENGTH ||
    !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema) ||
    schema.toLowerCase().startsWith('pg_')
  ) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `a schema name must be 1 to ${MAX_IDENTIFIER_LENGTH} letters, digits and underscores, not starting with a digit or pg_; got ${JSON.stringify(schema)}`,
    );
  }
  return `"${schema}"`;
}

/**
 * Brings `schema` (created if missing) to the latest version and returns the version it found.
 * Throws `STORE_FAILED` for a schema written by a newer version of the package.
 *
 * @example
 * await migratePostgres(pool, 'agent_statechart'); // 0 for a new schema, 4 for one up to date
 */
export async function migratePostgres(
  pool: PostgresPool,
  schema: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<number> {
  const quoted = quoteSchemaName(schema);
  let found: number | undefined;
  for (;;) {
    const version = await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `agent-statechart migrations ${schema}`,
      ]);
      // Checked first: CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when
      // the schema exists, which an application's role often lacks.
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rows.length === 0) await client.query(`CREATE SCHEMA ${quoted}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query(
        `SELECT coalesce(max(version), 0)::integer AS version FROM ${quoted}.schema_migrations`,
      );
      const current = (rows[0] as { version: number }).version;
      found ??= current;
      if (current > migrations.length) {
        throw new AgentStatechartError(
          'STORE_FAILED',
          `the session schema ${quoted} is at version ${current}, newer than this package knows (${migrations.length}); upgrade agent-statechart to open it`,
        );
      }
      if (current === migrations.length) return current;
      await client.query(migrations[current]!(quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version) VALUES ($1)`, [
        current + 1,
      ]);
      return current + 1;
    });
    if (version === migrations.length) return found!;
  }
}
