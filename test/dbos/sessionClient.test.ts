/**
 * `client.send` against a real PostgreSQL with DBOS's tables and no worker (the drives it enqueues
 * stay in the queue, where they can be counted): an input sent again with the same idempotency key
 * is stored and enqueued once, also when both sends run at the same moment.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectSessionClient, type SessionClient } from '../../src/dbos/index.js';
import { AgentStatechartError, type AgentEvent } from '../../src/index.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';

const installation = inject('postgresInstallation');

const say = (content: string): AgentEvent => ({
  type: 'UserInput',
  message: { role: 'user', content },
});

describe.skipIf(installation === null)('client.send', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let client: SessionClient;
  let other: SessionClient;
  let sessionCount = 0;

  /** A new session, so no test sees another's inputs. */
  async function newSession(): Promise<string> {
    sessionCount += 1;
    const sessionId = `s${sessionCount}`;
    await client.createSession(sessionId);
    return sessionId;
  }

  /** What the session's inbox holds and the drives enqueued for it. */
  async function stored(sessionId: string) {
    const inputs = await admin.query<{ seq: number; input: string }>(
      'SELECT seq, input FROM agent_statechart.inbox WHERE session_id = $1 ORDER BY seq',
      [sessionId],
    );
    const drives = await admin.query<{ workflow_uuid: string }>(
      'SELECT workflow_uuid FROM dbos.workflow_status WHERE queue_partition_key = $1 ORDER BY workflow_uuid',
      [sessionId],
    );
    return {
      inputs: inputs.rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.input) as unknown })),
      drives: drives.rows.map((row) => row.workflow_uuid),
    };
  }

  async function refusal(promise: Promise<unknown>): Promise<AgentStatechartError> {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AgentStatechartError);
    return error as AgentStatechartError;
  }

  beforeAll(async () => {
    server = await startPostgres({ installation: installation!, database: 'service' });
    await DBOS.migrate(server.connectionString);
    admin = new pg.Pool({ connectionString: server.connectionString, max: 3 });
    client = await connectSessionClient({ connectionString: server.connectionString });
    other = await connectSessionClient({ connectionString: server.connectionString });
  });

  afterAll(async () => {
    await other?.close();
    await client?.close();
    await admin?.end();
    await server?.stop();
  });

  it('takes a send repeated with the same key once: the same answer, one input, one drive', async () => {
    const sessionId = await newSession();
    const first = await client.send(sessionId, say('hi'), { idempotencyKey: 'req-1' });
    expect(first).toEqual({ inboxSeq: 1, workflowId: `session:${sessionId}:input:1` });
    // Retried from another process, after the first was stored (as after a lost COMMIT reply).
    expect(await other.send(sessionId, say('hi'), { idempotencyKey: 'req-1' })).toEqual(first);
    expect(await stored(sessionId)).toEqual({
      inputs: [{ seq: 1, event: say('hi') }],
      drives: [first.workflowId],
    });

    // Still the same answer once a drive has taken the input from the inbox.
    await admin.query(
      'UPDATE agent_statechart.sessions SET inbox_taken = 1 WHERE session_id = $1',
      [sessionId],
    );
    expect(await client.send(sessionId, say('hi'), { idempotencyKey: 'req-1' })).toEqual(first);

    // Another key, or none, is another input.
    const second = await client.send(sessionId, say('hi'), { idempotencyKey: 'req-2' });
    const third = await client.send(sessionId, say('hi'));
    expect([second.inboxSeq, third.inboxSeq]).toEqual([2, 3]);
    expect((await stored(sessionId)).drives).toHaveLength(3);
  });

  it('answers two sends with the same key at the same moment alike, storing one input', async () => {
    const sessionId = await newSession();
    // Both sends are held at the session's row lock until both wait there, then let go together.
    const blocker = await admin.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        'SELECT 1 FROM agent_statechart.sessions WHERE session_id = $1 FOR UPDATE',
        [sessionId],
      );
      const sends = [client, other].map((sender) =>
        sender.send(sessionId, say('once'), { idempotencyKey: 'same' }),
      );
      await expect
        .poll(async () => {
          const { rows } = await admin.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' AND pid <> $1`,
            [(blocker as unknown as { processID: number }).processID],
          );
          return rows[0]!.n;
        })
        .toBe(2);
      await blocker.query('COMMIT');
      const [a, b] = await Promise.all(sends);
      expect(a).toEqual({ inboxSeq: 1, workflowId: `session:${sessionId}:input:1` });
      expect(b).toEqual(a);
    } finally {
      blocker.release();
    }
    expect(await stored(sessionId)).toEqual({
      inputs: [{ seq: 1, event: say('once') }],
      drives: [`session:${sessionId}:input:1`],
    });
  });

  it('refuses a key given again with another event, and stores nothing for it', async () => {
    const sessionId = await newSession();
    await client.send(sessionId, say('first'), { idempotencyKey: 'k' });
    const error = await refusal(client.send(sessionId, say('second'), { idempotencyKey: 'k' }));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(/idempotency key "k" was given with another event before/);
    expect(await stored(sessionId)).toEqual({
      inputs: [{ seq: 1, event: say('first') }],
      drives: [`session:${sessionId}:input:1`],
    });
    // The same event with its keys in another order is the same event.
    const approval = { type: 'ToolApproval', callId: 'c1', decision: 'allow' } as const;
    const sent = await client.send(sessionId, approval, { idempotencyKey: 'a' });
    const reordered = { decision: 'allow', callId: 'c1', type: 'ToolApproval' } as const;
    expect(await client.send(sessionId, reordered, { idempotencyKey: 'a' })).toEqual(sent);
  });

  it('scopes keys to their session', async () => {
    const one = await newSession();
    const two = await newSession();
    await client.send(one, say('x'), { idempotencyKey: 'shared' });
    await client.send(one, say('y'));
    expect(await client.send(two, say('z'), { idempotencyKey: 'shared' })).toEqual({
      inboxSeq: 1,
      workflowId: `session:${two}:input:1`,
    });
    expect((await stored(two)).inputs).toEqual([{ seq: 1, event: say('z') }]);
  });

  it('refuses an unusable key before storing anything', async () => {
    const sessionId = await newSession();
    for (const idempotencyKey of ['', 'k'.repeat(201), 'a\u0000b', 7 as unknown as string]) {
      const error = await refusal(client.send(sessionId, say('hi'), { idempotencyKey }));
      expect(error.code).toBe('INVALID_OPTION');
      expect(error.message).toMatch(/an idempotency key must be 1 to 200 characters/);
    }
    expect(await stored(sessionId)).toEqual({ inputs: [], drives: [] });
  });
});
