/**
 * What the PostgreSQL store needs of a connection pool, loading the `pg` driver (an optional peer
 * dependency) on first use, and the one way it runs a transaction.
 */
import { createRequire } from 'node:module';
import { AgentStatechartError, errorMessage } from '../machine/index.js';
import { storeFailure } from './storeRules.js';

/**
 * A result as the store reads it (`pg`'s `QueryResult` fits).
 *
 * @example
 * const { rows } = await client.query('SELECT 1 AS one');
 */
export interface PostgresQueryResult {
  rows: unknown[];
  rowCount: number | null;
}

/**
 * A connection taken from a pool (`pg`'s `PoolClient` fits).
 *
 * @example
 * const client = await pool.connect();
 * try { await client.query('SELECT 1'); } finally { client.release(); }
 */
export interface PostgresPoolClient {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Gives the connection back; with an error (or `true`), closes it instead. */
  release(destroy?: Error | boolean): void;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * A connection pool (`pg`'s `Pool` fits): pass your own to share it with the rest of the service.
 *
 * @example
 * const pool: PostgresPool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 */
export interface PostgresPool {
  connect(): Promise<PostgresPoolClient>;
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  end(): Promise<void>;
}

/**
 * What the store uses of the `pg` module: its `Pool`. Written out here rather than taken from
 * `pg`'s types, so the package's types compile for a user who has not installed `pg`.
 *
 * @example
 * const { Pool }: PostgresDriver = loadPostgresDriver();
 */
export interface PostgresDriver {
  Pool: new (config: { connectionString: string; max: number }) => PostgresPool & {
    on(event: 'error', listener: (error: Error) => void): unknown;
  };
}

/**
 * Requires `pg`, or throws `MISSING_PEER_DEPENDENCY` saying what to install. `load` is the
 * loader (replaced in tests).
 *
 * @example
 * const { Pool } = loadPostgresDriver();
 */
export function loadPostgresDriver(
  load: () => unknown = () => createRequire(import.meta.url)('pg'),
): PostgresDriver {
  try {
    return load() as PostgresDriver;
  } catch (error) {
    throw new AgentStatechartError(
      'MISSING_PEER_DEPENDENCY',
      `the PostgreSQL session store needs the optional peer dependency pg, which did not load (${errorMessage(error)}); run \`npm install pg\``,
      { cause: error },
    );
  }
}

/**
 * A pool of `size` connections to `connectionString`, made with the `pg` driver.
 *
 * @example
 * const pool = openPostgresPool('postgresql://app@db/app', 10);
 */
export function openPostgresPool(connectionString: string, size: number): PostgresPool {
  const { Pool } = loadPostgresDriver();
  const pool = new Pool({ connectionString, max: size });
  // A connection that fails while idle in the pool (server restarted, backend terminated) is
  // dropped and replaced by the pool; the next query reports the failure if it persists. Without
  // a listener, Node would throw the event into the host.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when
 * it throws (and the error rethrown). A connection that cannot even roll back is closed, not
 * given back to the pool.
 *
 * @example
 * await inTransaction(pool, (client) => client.query('UPDATE t SET n = n + 1'));
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresPoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The server may end the connection between two statements (a transaction left idle too long
  // while this process was paused): the next statement reports it, so the event itself is not
  // thrown into the host.
  const reportedByNextStatement = () => undefined;
  client.on?.('error', reportedByNextStatement);
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.off?.('error', reportedByNextStatement);
    client.release(broken);
  }
}

/**
 * Runs `work`, reporting a failure of the driver or the server as `STORE_FAILED` naming `what`
 * failed. An `AgentStatechartError` (a refusal the caller can act on) passes as it is.
 *
 * @example
 * const rows = await asStoreFailure('the PostgreSQL session store', () => pool.query('SELECT 1'));
 */
export async function asStoreFailure<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeFailure(what, error);
  }
}
