/**
 * The PostgreSQL store: the conformance suite and the compacted session against a real server (one
 * per file, a fresh schema per test), plus what only a shared database shows — migrations from an empty schema, from the
 * previous version and from several workers starting at once, two pools racing appends, a fenced
 * late writer, and a client killed in the middle of its transaction.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentStatechartError } from '../../src/index.js';
import {
  migratePostgres,
  POSTGRES_MIGRATIONS,
  quoteSchemaName,
} from '../../src/persistence/postgresMigrations.js';
import { openPostgresPool, type PostgresPool } from '../../src/persistence/postgresPool.js';
import {
  createPostgresSessionStore,
  type PostgresSessionStore,
} from '../../src/persistence/postgresSessionStore.js';
import { claimWhileAlive, registerExecutor } from '../../src/dbos/executorLiveness.js';
import { createSessionInbox } from '../../src/dbos/sessionInbox.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';
import { describeCompactedSession } from './compactedSessionSuite.js';
import { describeSessionStore } from './sessionStoreConformance.js';
import { event, inputText, userInput } from './storedEntries.js';

const installation = inject('postgresInstallation');
const APPEND_CHILD = join(import.meta.dirname, 'postgresAppendChild.ts');

let server: PostgresServer;
let admin: pg.Pool;
let schemaCount = 0;
let schema = '';
const stores: SessionStore[] = [];

/** A store on a schema of its own (or on `name`), closed after the test. */
function openStore(name = schema, extra: { pool?: PostgresPool } = {}): SessionStore {
  const store = createPostgresSessionStore({
    connectionString: server.connectionString,
    schema: name,
    poolSize: 4,
    ...extra,
  });
  stores.push(store);
  return store;
}

function freshSchema(): string {
  schemaCount += 1;
  schema = `t${schemaCount}`;
  return schema;
}

async function versions(name: string): Promise<number[]> {
  const { rows } = await admin.query<{ version: number }>(
    `SELECT version FROM ${quoteSchemaName(name)}.schema_migrations ORDER BY version`,
  );
  return rows.map((row) => row.version);
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (error instanceof AgentStatechartError ? error.code : String(error)),
  );
}

/**
 * Locks transcript record 0 of session `s1` in an open transaction, so a write that updates it
 * stops there, in the middle of its own transaction, after its entries. Roll back to release.
 */
async function lockTranscriptRecord(q: string): Promise<pg.PoolClient> {
  const blocker = await admin.connect();
  await blocker.query('BEGIN');
  await blocker.query(
    `SELECT 1 FROM ${q}.transcript WHERE session_id = 's1' AND message_index = 0 FOR UPDATE`,
  );
  return blocker;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.skipIf(installation === null)('the PostgreSQL store', () => {
  beforeAll(async () => {
    server = await startPostgres({ installation: installation!, database: 'sessions' });
    admin = new pg.Pool({ connectionString: server.connectionString, max: 4 });
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  describeSessionStore('the PostgreSQL store', {
    async open() {
      return openStore(freshSchema());
    },
    async corrupt(_store, sessionId, what) {
      const q = quoteSchemaName(schema);
      if (what === 'entry') {
        await admin.query(
          `UPDATE ${q}.entries SET data = '{"type": "Use' WHERE session_id = $1 AND seq = 1`,
          [sessionId],
        );
      } else {
        await admin.query(
          `UPDATE ${q}.sessions SET checkpoint_context = 'not json' WHERE session_id = $1`,
          [sessionId],
        );
      }
    },
    async cleanup() {
      await Promise.all(stores.splice(0).map((store) => store.close()));
      await admin.query(`DROP SCHEMA ${quoteSchemaName(schema)} CASCADE`);
    },
  });

  describeCompactedSession('the PostgreSQL store', {
    async open() {
      return openStore(freshSchema());
    },
    async cleanup() {
      await Promise.all(stores.splice(0).map((store) => store.close()));
      await admin.query(`DROP SCHEMA ${quoteSchemaName(schema)} CASCADE`);
    },
  });

  describe('migrations', () => {
    it('builds the schema from nothing on first use, each version once', async () => {
      const name = freshSchema();
      const store = openStore(name);
      expect(await store.list()).toEqual([]);
      expect(await versions(name)).toEqual([1, 2, 3, 4]);
      const { rows } = await admin.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`,
        [name],
      );
      expect(rows.map((row) => row.name)).toEqual([
        'entries',
        'executors',
        'inbox',
        'schema_migrations',
        'sessions',
        'transcript',
      ]);
    });

    it('upgrades a schema at the previous version and keeps its sessions', async () => {
      const name = freshSchema();
      const q = quoteSchemaName(name);
      const pool = new pg.Pool({ connectionString: server.connectionString, max: 2 });
      try {
        expect(
          await migratePostgres(
            pool as unknown as PostgresPool,
            name,
            POSTGRES_MIGRATIONS.slice(0, -1),
          ),
        ).toBe(0);
      } finally {
        await pool.end();
      }
      expect(await versions(name)).toEqual([1, 2, 3]);
      // A session written by the previous version, as it wrote it, with an input in its inbox.
      await admin.query(
        `INSERT INTO ${q}.sessions (session_id, header, created_at, updated_at, head) VALUES ('old', $1, 1000, 2001, 1)`,
        [JSON.stringify({ sessionId: 'old', chartVersion: 'chart-1', createdAt: 1_000 })],
      );
      await admin.query(
        `INSERT INTO ${q}.entries (session_id, seq, at, kind, data) VALUES ('old', 1, 2001, 'event', '{"type":"Interrupt"}')`,
      );
      await admin.query(
        `INSERT INTO ${q}.inbox (session_id, seq, at, input) VALUES ('old', 1, 2002, '{"type":"Interrupt"}')`,
      );

      const store = openStore(name);
      expect((await store.list()).map((session) => session.sessionId)).toEqual(['old']);
      expect(await versions(name)).toEqual([1, 2, 3, 4]);
      expect((await store.load('old'))?.entries).toEqual([event(1, { type: 'Interrupt' })]);
      // What version 4 adds is there: the old input, with no key, numbers on with keyed ones.
      const inboxPool = openPostgresPool(server.connectionString, 1);
      try {
        const inbox = createSessionInbox(inboxPool, name);
        const interrupt = { type: 'Interrupt' } as const;
        const put = () =>
          inbox.put('old', interrupt, async () => 'stored', { idempotencyKey: 'k' });
        expect(await put()).toEqual({ seq: 2, repeated: false, result: 'stored' });
        expect(await put()).toEqual({ seq: 2, repeated: true });
        expect(await inbox.next('old')).toEqual({ seq: 1, event: interrupt });
      } finally {
        await inboxPool.end();
      }
    });

    it('runs each migration once when many workers start on an empty schema together', async () => {
      const name = freshSchema();
      const workers = Array.from({ length: 6 }, () => openStore(name));
      await Promise.all(
        workers.map((store, index) =>
          store.create({ sessionId: `w${index}`, chartVersion: 'chart-1', createdAt: index }),
        ),
      );
      expect(await versions(name)).toEqual([1, 2, 3, 4]);
      expect(await workers[0]!.list()).toHaveLength(6);
    });

    it('refuses a schema written by a newer version of the package', async () => {
      const name = freshSchema();
      await openStore(name).list();
      const known = POSTGRES_MIGRATIONS.length;
      await admin.query(
        `INSERT INTO ${quoteSchemaName(name)}.schema_migrations (version) VALUES ($1)`,
        [known + 1],
      );
      const error = await openStore(name)
        .list()
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'STORE_FAILED' });
      expect(String(error)).toContain(
        `version ${known + 1}, newer than this package knows (${known}); upgrade`,
      );
    });

    it('refuses a schema name that is not a plain identifier, and a store with no database', () => {
      for (const bad of ['', '1abc', 'a"b', 'x;DROP TABLE y', 'pg_catalog', 'a'.repeat(64)]) {
        expect(() =>
          createPostgresSessionStore({ connectionString: 'postgresql://x', schema: bad }),
        ).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }) as unknown);
      }
      expect(() => createPostgresSessionStore({})).toThrow(/needs a connectionString or a pool/);
    });
  });

  describe('many writers', () => {
    it('two pools appending to one session at once: every entry once, no gaps, the losers told to retry', async () => {
      const name = freshSchema();
      const [first, second] = [openStore(name), openStore(name)];
      await first.create({ sessionId: 's1', chartVersion: 'chart-1', createdAt: 1 });
      // Both pools connected and migrated before the race, so neither starts late.
      await second.load('s1');
      let conflicts = 0;
      const worker = async (store: SessionStore, who: string) => {
        for (let index = 0; index < 40; index++) {
          for (;;) {
            const head = (await store.load('s1'))!.head;
            const code = await codeOf(
              store.append('s1', {
                after: head,
                entries: [event(head + 1, userInput(`${who} ${index}`))],
              }),
            );
            if (code === undefined) break;
            expect(code).toBe('SESSION_CONFLICT');
            conflicts += 1;
          }
        }
      };
      await Promise.all([worker(first, 'a'), worker(second, 'b')]);
      const entries = await second.entries('s1');
      expect(entries.map((entry) => entry.seq)).toEqual(
        Array.from({ length: 80 }, (_, index) => index + 1),
      );
      for (const who of ['a', 'b']) {
        const mine = entries
          .map((entry) => String(inputText(entry)).split(' '))
          .filter(([writer]) => writer === who);
        expect(mine.map(([, index]) => Number(index))).toEqual(
          Array.from({ length: 40 }, (_, i) => i),
        );
      }
      // Both really raced: at least one append was refused for a head that had moved.
      expect(conflicts).toBeGreaterThan(0);
    });

    it('makes no claim when what must hold alongside it fails, and one that waits on it is refused', async () => {
      const name = freshSchema();
      const store = openStore(name) as PostgresSessionStore;
      await store.create({ sessionId: 's1', chartVersion: 'chart-1', createdAt: 1 });
      expect(await store.claimWith('s1', () => Promise.resolve(true))).toBe(1);
      expect(await store.claimWith('s1', () => Promise.resolve(false))).toBeUndefined();
      expect(await store.claim('s1')).toBe(2);

      // A worker's drive claims only while the worker is alive. The reaper is declaring it dead
      // (its row deleted, not yet committed): the claim waits for the reaper, then is refused.
      await registerExecutor(admin, name, 'worker-1');
      expect(await claimWhileAlive(store, 'worker-1', 's1')).toBe(3);
      const reaper = await admin.connect();
      await reaper.query('BEGIN');
      await reaper.query(`DELETE FROM ${quoteSchemaName(name)}.executors WHERE executor_id = $1`, [
        'worker-1',
      ]);
      let settled = false;
      const zombie = claimWhileAlive(store, 'worker-1', 's1').finally(() => {
        settled = true;
      });
      await sleep(200);
      expect(settled).toBe(false);
      await reaper.query('COMMIT');
      reaper.release();
      expect(await zombie).toBeUndefined();
      // The epoch did not move: the recovery's claim is the next one.
      expect(await store.claim('s1')).toBe(4);
    });

    it('a late writer whose claim was superseded mid-write lands before the new claim, then is fenced', async () => {
      const name = freshSchema();
      const q = quoteSchemaName(name);
      const [late, fresh] = [openStore(name), openStore(name)];
      await late.create({ sessionId: 's1', chartVersion: 'chart-1', createdAt: 1 });
      const oldEpoch = await late.claim('s1');
      await late.append('s1', {
        after: 0,
        epoch: oldEpoch,
        entries: [event(1, userInput('a'))],
        transcript: [{ index: 0, refs: [1], body: { from: 'message', ref: 1 } }],
      });
      const blocker = await lockTranscriptRecord(q);
      const order: string[] = [];
      const lateWrite = late
        .append('s1', {
          after: 1,
          epoch: oldEpoch,
          entries: [event(2, userInput('late'))],
          transcript: [{ index: 0, refs: [2], body: { from: 'message', ref: 2 } }],
        })
        .then(() => order.push('late write committed'));
      await until('the late write to wait on the lock', async () => {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%transcript%'`,
        );
        return rows.length > 0 ? true : undefined;
      });
      // The new claim must wait for the session row the late writer holds.
      const newClaim = fresh.claim('s1').then((epoch) => {
        order.push('claimed');
        return epoch;
      });
      await sleep(200);
      expect(order).toEqual([]);
      await blocker.query('ROLLBACK');
      blocker.release();
      const newEpoch = await newClaim;
      await lateWrite;
      // Both went through: the late write was not fenced, so it committed before the claim
      // moved the epoch on. (Which reply reaches this process first is up to the two sockets.)
      expect(order.sort()).toEqual(['claimed', 'late write committed']);
      expect(newEpoch).toBe(oldEpoch + 1);
      // From now on the late writer is refused, whatever head it names; the new one writes.
      expect(
        await codeOf(
          late.append('s1', { after: 2, epoch: oldEpoch, entries: [event(3, userInput('x'))] }),
        ),
      ).toBe('SESSION_FENCED');
      await fresh.append('s1', { after: 2, epoch: newEpoch, entries: [event(3, userInput('b'))] });
      expect((await fresh.entries('s1')).map(inputText)).toEqual(['a', 'late', 'b']);
    });

    it('a client killed in the middle of its transaction leaves the log as it was', async () => {
      const name = freshSchema();
      const q = quoteSchemaName(name);
      const store = openStore(name);
      await store.create({ sessionId: 's1', chartVersion: 'chart-1', createdAt: 1 });
      await store.append('s1', {
        after: 0,
        entries: [event(1, userInput('kept'))],
        transcript: [{ index: 0, refs: [1], body: { from: 'message', ref: 1 } }],
      });
      const blocker = await lockTranscriptRecord(q);
      const url = `${server.connectionString}?application_name=torn-writer`;
      const child = spawn(process.execPath, ['--import', 'tsx', APPEND_CHILD, url, name], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        // Its entries are written (it holds a transaction id) and it waits on the transcript row.
        await until('the child to stop mid-transaction', async () => {
          const { rows } = await admin.query(
            `SELECT 1 FROM pg_stat_activity WHERE application_name = 'torn-writer'
             AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL`,
          );
          return rows.length > 0 ? true : undefined;
        });
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      } finally {
        await blocker.query('ROLLBACK');
        blocker.release();
      }
      await until('the dead client to be gone', async () => {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'torn-writer'`,
        );
        return rows.length === 0 ? true : undefined;
      });
      expect(output).toBe('');
      const loaded = await store.load('s1');
      expect(loaded?.head).toBe(1);
      expect(loaded?.checkpoint).toBeUndefined();
      expect(loaded?.entries).toEqual([event(1, userInput('kept'))]);
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM ${q}.entries`);
      expect(rows[0]).toEqual({ n: 1 });
      const { rows: records } = await admin.query(`SELECT refs, body FROM ${q}.transcript`);
      expect(records).toEqual([{ refs: [1], body: '{"from":"message","ref":1}' }]);
      await store.append('s1', { after: 1, entries: [event(2, userInput('next'))] });
      expect((await store.load('s1'))?.head).toBe(2);
    });

    it('shares a pool the caller owns, and leaves it open on close', async () => {
      const name = freshSchema();
      const pool = new pg.Pool({ connectionString: server.connectionString, max: 2 });
      try {
        const store = createPostgresSessionStore({
          pool: pool,
          schema: name,
        });
        await store.create({ sessionId: 's1', chartVersion: 'chart-1', createdAt: 1 });
        await store.close();
        expect(await codeOf(store.load('s1'))).toBe('STORE_FAILED');
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM ${quoteSchemaName(name)}.sessions`,
        );
        expect(rows[0]).toEqual({ n: 1 });
      } finally {
        await pool.end();
      }
    });

    it('reports an unreachable server as STORE_FAILED', async () => {
      const store = createPostgresSessionStore({
        connectionString: `postgresql://postgres@127.0.0.1:1/sessions`,
        schema: freshSchema(),
      });
      stores.push(store);
      const error = await store.list().catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'STORE_FAILED' });
      expect(String(error)).toMatch(/the PostgreSQL session store failed: .*ECONNREFUSED/);
    });

    it("reports the workers' inbox on an unreachable server as STORE_FAILED, and passes its own refusals as they are", async () => {
      const input = { type: 'UserInput', message: { role: 'user', content: 'hi' } } as const;
      const unreachable = openPostgresPool('postgresql://postgres@127.0.0.1:1/sessions', 1);
      try {
        const inbox = createSessionInbox(unreachable, freshSchema());
        const put = await inbox.put('s1', input, async () => undefined).catch((e: unknown) => e);
        expect(put).toMatchObject({ code: 'STORE_FAILED' });
        expect(String(put)).toMatch(/the session inbox failed: .*ECONNREFUSED/);
        expect(await codeOf(inbox.next('s1'))).toBe('STORE_FAILED');
      } finally {
        await unreachable.end();
      }

      const name = freshSchema();
      const store = openStore(name);
      await store.list();
      const pool = openPostgresPool(server.connectionString, 1);
      try {
        const inbox = createSessionInbox(pool, name);
        expect(await codeOf(inbox.put('nobody', input, async () => undefined))).toBe(
          'SESSION_NOT_FOUND',
        );
      } finally {
        await pool.end();
      }
    });
  });
});
