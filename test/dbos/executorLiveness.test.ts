/**
 * The reaper's hand-back, against a real PostgreSQL for the workers' table and their liveness
 * connections. DBOS's queue is one per process and runs in the failover suite's workers
 * (`npm run test:workers`); here the reaper's two calls into it are answered by a small queue that
 * records what it was asked and dequeues on a timer, as workers polling it would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  livenessName,
  reap,
  registerExecutor,
  type ReaperEngine,
} from '../../src/dbos/executorLiveness.js';
import { openPostgresPool, type PostgresPool } from '../../src/persistence/postgresPool.js';
import { createPostgresSessionStore } from '../../src/persistence/postgresSessionStore.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';

const installation = inject('postgresInstallation');
const QUEUE = 'sessions';
const POLL_MS = 40;

/**
 * The session queue as the reaper sees it. `dequeuing` says whether workers have free slots: while
 * it is on, whatever is in the queue is dequeued at the next poll.
 */
function fakeQueue(orphans: number, deadExecutor: string) {
  const workflows = new Map<string, { status: 'PENDING' | 'ENQUEUED'; executorId: string }>(
    Array.from({ length: orphans }, (_, index) => [
      `drive-${index}`,
      { status: 'PENDING', executorId: deadExecutor },
    ]),
  );
  const resumed: string[][] = [];
  /** Workflows still in the queue when the next batch was handed back. */
  const notYetDequeued: string[] = [];
  let dequeuing = true;
  const poller = setInterval(() => {
    if (!dequeuing) return;
    for (const workflow of workflows.values()) {
      if (workflow.status === 'ENQUEUED') {
        workflow.status = 'PENDING';
        workflow.executorId = 'alive';
      }
    }
  }, POLL_MS);
  const engine: ReaperEngine = {
    async listWorkflows({ status, workflowIDs }) {
      return [...workflows]
        .filter(
          ([id, workflow]) => workflow.status === status && (workflowIDs?.includes(id) ?? true),
        )
        .map(([workflowID, workflow]) => ({ workflowID, executorId: workflow.executorId }));
    },
    async resumeWorkflows(ids) {
      notYetDequeued.push(
        ...resumed.flat().filter((id) => workflows.get(id)!.status === 'ENQUEUED'),
      );
      resumed.push(ids);
      for (const id of ids) workflows.get(id)!.status = 'ENQUEUED';
    },
  };
  return {
    engine,
    resumed,
    notYetDequeued,
    setDequeuing: (on: boolean) => (dequeuing = on),
    stop: () => clearInterval(poller),
  };
}

describe.skipIf(installation === null)('the reaper', () => {
  let server: PostgresServer;
  let pool: PostgresPool;
  let schemaCount = 0;
  const cleanups: Array<() => Promise<void> | void> = [];

  /** A schema with `self` and `alive` registered and alive, and `gone` registered and dead. */
  async function workers(): Promise<string> {
    schemaCount += 1;
    const schema = `reaper${schemaCount}`;
    const store = createPostgresSessionStore({ pool, schema });
    await store.list();
    for (const executor of ['self', 'alive', 'gone'])
      await registerExecutor(pool, schema, executor);
    // A live worker holds its liveness connection; `gone` has none, as after a crash.
    const liveness = new pg.Client({
      connectionString: server.connectionString,
      application_name: livenessName('alive'),
    });
    await liveness.connect();
    cleanups.push(() => liveness.end());
    return schema;
  }

  /** One round of this worker's (`self`) reaper over `schema`, on `reaperPool`. */
  const round = (schema: string, engine: ReaperEngine, reaperPool = pool) =>
    reap({
      pool: reaperPool,
      schema,
      engine,
      queueName: QUEUE,
      self: 'self',
      leaseMs: 60_000,
      pollMs: POLL_MS,
    });

  beforeAll(async () => {
    server = await startPostgres({ installation: installation!, database: 'workers' });
    pool = openPostgresPool(server.connectionString, 4);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it("hands a dead worker's drives back in batches, each once the one before was dequeued", async () => {
    const schema = await workers();
    const queue = fakeQueue(40, 'gone');
    cleanups.push(queue.stop);
    const recovery = await round(schema, queue.engine);
    expect(recovery?.dead).toEqual(['gone']);
    expect([...(recovery?.workflows ?? [])].sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `drive-${index}`).sort(),
    );
    // Two live workers (this one and `alive`): a batch for each.
    expect(queue.resumed.map((batch) => batch.length)).toEqual([20, 20]);
    expect(queue.notYetDequeued).toEqual([]);
  });

  it('lets another reaper go on when one stalls in its round; what the stalled one removed stays removed', async () => {
    const schema = await workers();
    const queue = fakeQueue(40, 'gone');
    cleanups.push(queue.stop);
    // The workers' connections end a transaction left idle for a lease: here 100 ms.
    const short = openPostgresPool(
      `${server.connectionString}?options=${encodeURIComponent('-c idle_in_transaction_session_timeout=100')}`,
      2,
    );
    cleanups.push(() => short.end());
    // The first reaper stalls (as if paused) once it has listed the orphans, for longer than that.
    let stall: (() => void) | undefined;
    const stalled: ReaperEngine = {
      listWorkflows: async (input) => {
        const listed = await queue.engine.listWorkflows(input);
        if (input.status === 'PENDING') await new Promise<void>((resume) => (stall = resume));
        return listed;
      },
      resumeWorkflows: (ids, options) => queue.engine.resumeWorkflows(ids, options),
    };
    const first = round(schema, stalled, short).then(
      () => 'finished',
      (error: unknown) => `failed: ${String(error)}`,
    );
    await expect.poll(() => stall).toBeDefined();
    await sleep(400);
    // Its lock has lapsed: another reaper takes the round over. The dead worker was removed for
    // good by the stalled one; its drives are orphans all the same.
    const second = await round(schema, queue.engine);
    expect(second?.dead).toEqual([]);
    expect(second?.workflows).toHaveLength(40);
    stall!();
    // Woken, the stalled reaper finds its lock gone and hands nothing back.
    expect(await first).toMatch(/^failed: /);
    expect(queue.resumed.map((batch) => batch.length)).toEqual([20, 20]);
    const { rows } = await pool.query(
      `SELECT executor_id FROM ${schema}.executors ORDER BY executor_id`,
    );
    expect(rows).toEqual([{ executor_id: 'alive' }, { executor_id: 'self' }]);
  });

  it('leaves the rest for a later round when a batch is not dequeued (no free slots)', async () => {
    const schema = await workers();
    const queue = fakeQueue(8, 'gone');
    cleanups.push(queue.stop);
    queue.setDequeuing(false);
    const first = await round(schema, queue.engine);
    const drives = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => `drive-${from + index}`);
    expect(first).toEqual({
      dead: ['gone'],
      workflows: drives(0, 4),
      at: expect.any(Number) as unknown,
    });
    queue.setDequeuing(true);
    // The executor is gone from the table now; its drives still waiting are orphans all the same.
    const second = await round(schema, queue.engine);
    expect(second).toEqual({
      dead: [],
      workflows: drives(4, 8),
      at: expect.any(Number) as unknown,
    });
    expect(queue.resumed).toEqual([drives(0, 4), drives(4, 6), drives(6, 8)]);
    expect(await round(schema, queue.engine)).toBeUndefined();
  });
});
