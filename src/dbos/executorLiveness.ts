/**
 * Which workers are alive, and recovering the work of those that are not. Self-hosted DBOS
 * recovers a dead executor's workflows only when an executor with the same id starts again; here
 * every worker process runs under a fresh id, so a dead id never comes back and its workflows are
 * taken over by the others:
 *
 * - each worker beats (`last_seen`) in the `executors` table on a connection of its own, never
 *   waiting behind its busy pool, and that connection's backend disappears from
 *   `pg_stat_activity` as soon as the process dies;
 * - every worker runs the reaper: under a transaction-scoped advisory lock (one reaper at a time,
 *   released if the reaper dies or stalls past a lease), it removes the executors whose lease ran
 *   out or whose liveness connection is gone, then hands every pending workflow of the session
 *   queue whose executor is no longer listed back to the queue (`DBOS.resumeWorkflows`), in
 *   batches that spread them over the live workers;
 * - a worker that finds its own row gone was declared dead while it was paused or cut off: its
 *   workflows already run elsewhere, so it stops taking work and then stops (the store's epochs
 *   refuse what it still tries to write meanwhile).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  inTransaction,
  type PostgresPool,
  type PostgresSessionStore,
  quoteSchemaName,
} from '../persistence/index.js';

/** The DBOS calls the reaper makes (the `DBOS` class fits). */
export interface ReaperEngine {
  listWorkflows(input: {
    status: 'PENDING' | 'ENQUEUED';
    queueName: string;
    workflowIDs?: string[];
    loadInput: false;
    loadOutput: false;
  }): Promise<Array<{ workflowID: string; executorId?: string }>>;
  resumeWorkflows(workflowIDs: string[], options: { queueName: string }): Promise<unknown>;
}

/**
 * A recovery the reaper made.
 *
 * @example
 * liveness.onRecovery = (recovery) => log(`${recovery.workflows.length} workflows of ${recovery.dead}`);
 */
export interface Recovery {
  /** The executors declared dead in this round. */
  dead: string[];
  /** The workflows handed back to the queue. */
  workflows: string[];
  at: number;
}

/** How many queue polls a batch may wait to be dequeued before the rest wait for a later round. */
const PICK_UP_POLLS = 10;

const LIVENESS_PREFIX = 'agent-statechart:';
/** PostgreSQL keeps the first 63 bytes of an application name. */
const NAME_LENGTH = 63;

/** The application name of a worker's liveness connection. */
export function livenessName(executorId: string): string {
  return `${LIVENESS_PREFIX}${executorId}`.slice(0, NAME_LENGTH);
}

/**
 * Registers `executorId` as alive (call before the executor takes any work).
 *
 * @example
 * await registerExecutor(liveness, 'agent_statechart', executorId);
 */
export async function registerExecutor(
  connection: Pick<PostgresPool, 'query'>,
  schema: string,
  executorId: string,
): Promise<void> {
  await connection.query(
    `INSERT INTO ${quoteSchemaName(schema)}.executors (executor_id) VALUES ($1)`,
    [executorId],
  );
}

/**
 * One heartbeat: `false` when the executor's row is gone (it was declared dead).
 *
 * @example
 * if (!(await beat(liveness, schema, executorId))) process.exit(75);
 */
export async function beat(
  connection: Pick<PostgresPool, 'query'>,
  schema: string,
  executorId: string,
): Promise<boolean> {
  const { rowCount } = await connection.query(
    `UPDATE ${quoteSchemaName(schema)}.executors SET last_seen = now() WHERE executor_id = $1`,
    [executorId],
  );
  return rowCount === 1;
}

/**
 * Claims a session for a drive on `executorId` while that executor is alive; `undefined` when it
 * was declared dead. The executor's row is held for the claim's transaction, so a reaper declaring
 * it dead either waits until the claim is made (and the recovery's own claim then supersedes it)
 * or has removed the row first, and no claim is made: a worker woken after being declared dead
 * cannot take a session back from the execution that recovered its work, nor start new work.
 *
 * @example
 * const epoch = await claimWhileAlive(store, DBOS.executorID, 'alice-1');
 */
export function claimWhileAlive(
  store: PostgresSessionStore,
  executorId: string,
  sessionId: string,
): Promise<number | undefined> {
  return store.claimWith(sessionId, async (client) => {
    const { rowCount } = await client.query(
      `SELECT 1 FROM ${quoteSchemaName(store.schema)}.executors WHERE executor_id = $1 FOR KEY SHARE`,
      [executorId],
    );
    return rowCount === 1;
  });
}

/**
 * One round of the reaper; `undefined` when another reaper holds the lock or nothing was dead.
 *
 * The orphaned drives go back in batches, one for each live worker, each once the one before has
 * been dequeued. DBOS dequeues up to a worker's free slots in one poll, so handed back at once
 * they would all go to the first worker to poll; the worker that took a batch has just polled
 * (and is still starting what it took), so the next batch goes to another, and a takeover
 * spreads over the live workers by their free capacity. A batch still waiting after a few polls
 * (no free slots) ends the round; the rest stay orphaned until a later one.
 *
 * @example
 * const recovery = await reap({ pool, schema, engine: DBOS, queueName, self, leaseMs: 3000, pollMs: 100 });
 */
export async function reap(options: ReapOptions): Promise<Recovery | undefined> {
  // One reaper at a time, under the lock of a transaction that only holds it. A reaper that
  // stalls (paused, starved of CPU) leaves that transaction idle, and the server ends it after a
  // lease (the workers' connections are opened with idle_in_transaction_session_timeout), so
  // another reaper goes on; one at work touches it before each move, and stops once it is gone.
  return inTransaction(options.pool, async (lock) => {
    const { rows } = await lock.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS mine', [
      `agent-statechart reaper ${options.schema}`,
    ]);
    if (!(rows[0] as { mine: boolean }).mine) return undefined;
    return reapUnderLock(options, async () => {
      await lock.query('SELECT 1');
    });
  });
}

interface ReapOptions {
  pool: PostgresPool;
  schema: string;
  engine: ReaperEngine;
  queueName: string;
  self: string;
  leaseMs: number;
  /** How often the workers poll the queue. */
  pollMs: number;
}

/** A round of the reaper, while `stillHeld` resolves (the reapers' lock is this round's). */
async function reapUnderLock(
  options: ReapOptions,
  stillHeld: () => Promise<void>,
): Promise<Recovery | undefined> {
  const q = quoteSchemaName(options.schema);
  // Committed on its own, before anything is handed back: a worker is never listed alive again
  // once its drives run elsewhere, even if this round ends half way.
  const { rows: deadRows } = await options.pool.query(
    `DELETE FROM ${q}.executors e
     WHERE e.executor_id <> $1
       AND (e.last_seen < now() - make_interval(secs => $2::float8 / 1000)
            OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = left($3 || e.executor_id, $4)))
     RETURNING e.executor_id`,
    [options.self, options.leaseMs, LIVENESS_PREFIX, NAME_LENGTH],
  );
  const { rows: alive } = await options.pool.query(`SELECT executor_id FROM ${q}.executors`);
  const living = new Set((alive as Array<{ executor_id: string }>).map((row) => row.executor_id));
  const pending = await options.engine.listWorkflows({
    status: 'PENDING',
    queueName: options.queueName,
    loadInput: false,
    loadOutput: false,
  });
  const orphans = pending
    .filter((workflow) => workflow.executorId !== undefined && !living.has(workflow.executorId))
    .map((workflow) => workflow.workflowID);
  const dead = (deadRows as Array<{ executor_id: string }>).map((row) => row.executor_id);
  if (orphans.length === 0 && dead.length === 0) return undefined;
  // Only the reaper holding the lock hands drives back, so none of this list has been handed
  // back and dequeued by a live worker since it was made.
  const size = Math.ceil(orphans.length / Math.max(1, living.size));
  const handedBack: string[] = [];
  for (let start = 0; start < orphans.length; start += size) {
    const batch = orphans.slice(start, start + size);
    await stillHeld();
    await options.engine.resumeWorkflows(batch, { queueName: options.queueName });
    handedBack.push(...batch);
    if (handedBack.length < orphans.length && !(await dequeued(options, batch, stillHeld))) break;
  }
  return { dead, workflows: handedBack, at: Date.now() };
}

/** Whether every workflow of `batch` has left the queue within a few polls. */
async function dequeued(
  options: { engine: ReaperEngine; queueName: string; pollMs: number },
  batch: string[],
  stillHeld: () => Promise<void>,
): Promise<boolean> {
  const deadline = Date.now() + PICK_UP_POLLS * options.pollMs;
  for (;;) {
    await sleep(options.pollMs / 2);
    await stillHeld();
    const waiting = await options.engine.listWorkflows({
      status: 'ENQUEUED',
      queueName: options.queueName,
      workflowIDs: batch,
      loadInput: false,
      loadOutput: false,
    });
    if (waiting.length === 0) return true;
    if (Date.now() >= deadline) return false;
  }
}
