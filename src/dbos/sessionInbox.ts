/**
 * A session's inbox: what arrives from outside (user input, approvals, mode changes) waits here,
 * numbered per session, until the session's driver records it in the log and feeds it to the
 * chart. Writing an input and enqueueing the workflow that will drive the session happen in one
 * transaction, so an input is never stored without a driver coming for it, nor the other way.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type AgentEvent,
  AgentStatechartError,
  CALLER_EVENTS,
  errorMessage,
} from '../machine/index.js';
import {
  asStoreFailure,
  checkSessionId,
  fromStoredJson,
  inTransaction,
  type PostgresPool,
  type PostgresPoolClient,
  quoteSchemaName,
  sessionNotFound,
  toStoredJson,
} from '../persistence/index.js';

/**
 * An input waiting in a session's inbox.
 *
 * @example
 * const input: InboxInput = { seq: 1, event: { type: 'UserInput', message: { role: 'user', content: 'hi' } } };
 */
export interface InboxInput {
  seq: number;
  event: AgentEvent;
}

/** The longest idempotency key an input takes. */
const MAX_KEY_LENGTH = 200;

/** Throws `INVALID_OPTION` unless `key` is a usable idempotency key. */
function checkIdempotencyKey(key: unknown): asserts key is string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > MAX_KEY_LENGTH ||
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(key)
  ) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `an idempotency key must be 1 to ${MAX_KEY_LENGTH} characters without control characters; got ${errorMessage(key)}`,
    );
  }
}

/** The events a session takes from outside: those a caller sends (the chart's traits say which). */
const INBOX_EVENTS: ReadonlySet<string> = new Set(CALLER_EVENTS);

/**
 * The inbox of every session in one schema.
 *
 * @example
 * const inbox = createSessionInbox(pool, 'agent_statechart');
 * await inbox.put('alice-1', event, async (client, seq) => enqueue(client, seq));
 */
export interface SessionInbox {
  /**
   * Adds `event` to the session's inbox and calls `alongside` with the same open transaction and
   * the input's number, so what it writes commits or rolls back with the input. With an
   * `idempotencyKey` the session already stored an input under, it stores nothing and calls
   * nothing: it answers that input's number (`repeated`), or refuses with `INVALID_OPTION` when
   * that input was another event. Only the events a caller sends are taken, and, with
   * `taskAnswer`, the `ToolCompleted` a subagent's drive answers its task with.
   */
  put<T>(
    sessionId: string,
    event: AgentEvent,
    alongside: (client: PostgresPoolClient, seq: number) => Promise<T>,
    options?: { idempotencyKey?: string; taskAnswer?: boolean },
  ): Promise<{ seq: number; repeated: false; result: T } | { seq: number; repeated: true }>;
  /** The oldest input the session's driver has not taken yet, if any. */
  next(sessionId: string): Promise<InboxInput | undefined>;
  /**
   * Marks the session's inputs through `seq` as taken, on `client` (inside the transaction that
   * records the input in the log, so an input is taken exactly when it is recorded; that
   * transaction's owner reports its failures).
   */
  take(client: Pick<PostgresPoolClient, 'query'>, sessionId: string, seq: number): Promise<void>;
}

/**
 * The inboxes of the sessions in `schema`.
 *
 * @example
 * const inbox = createSessionInbox(pool, 'agent_statechart');
 */
export function createSessionInbox(pool: PostgresPool, schema: string): SessionInbox {
  const q = quoteSchemaName(schema);
  const run = <T>(work: () => Promise<T>) => asStoreFailure('the session inbox', work);
  return {
    async put(sessionId, event, alongside, options = {}) {
      checkSessionId(sessionId);
      const key = options.idempotencyKey;
      if (key !== undefined) checkIdempotencyKey(key);
      const type = (event as { type?: string })?.type ?? '';
      if (!INBOX_EVENTS.has(type) && !(options.taskAnswer === true && type === 'ToolCompleted')) {
        throw new AgentStatechartError(
          'INVALID_OPTION',
          `a session takes ${[...INBOX_EVENTS].join(', ')} from outside; got ${JSON.stringify((event as { type?: string })?.type)}`,
        );
      }
      const text = toStoredJson(event, 'the input');
      return run(() =>
        inTransaction(pool, async (client) => {
          // The session row's lock numbers inputs one at a time, without gaps, and makes a second
          // send with the same key wait for the first; what follows is read after the lock, in
          // statements of their own, so it sees every input committed before.
          const locked = await client.query(
            `SELECT 1 FROM ${q}.sessions WHERE session_id = $1 FOR UPDATE`,
            [sessionId],
          );
          if (locked.rows.length === 0) throw sessionNotFound(sessionId);
          if (key !== undefined) {
            const { rows: before } = await client.query(
              `SELECT seq, input FROM ${q}.inbox WHERE session_id = $1 AND idempotency_key = $2`,
              [sessionId, key],
            );
            const stored = before[0] as { seq: number; input: string } | undefined;
            if (stored !== undefined) {
              const what = `session '${sessionId}', input ${stored.seq}`;
              if (!isDeepStrictEqual(fromStoredJson(stored.input, what), JSON.parse(text))) {
                throw new AgentStatechartError(
                  'INVALID_OPTION',
                  `the idempotency key ${JSON.stringify(key)} was given with another event before (${what}); a retried send repeats its event, a new input needs a key of its own`,
                );
              }
              return { seq: stored.seq, repeated: true as const };
            }
          }
          const { rows } = await client.query(
            `SELECT coalesce(max(seq), 0) AS last FROM ${q}.inbox WHERE session_id = $1`,
            [sessionId],
          );
          const seq = (rows[0] as { last: number }).last + 1;
          await client.query(
            `INSERT INTO ${q}.inbox (session_id, seq, at, input, idempotency_key) VALUES ($1, $2, $3, $4, $5)`,
            [sessionId, seq, Date.now(), text, key ?? null],
          );
          return { seq, repeated: false as const, result: await alongside(client, seq) };
        }),
      );
    },

    async next(sessionId) {
      const { rows } = await run(() =>
        pool.query(
          `SELECT i.seq, i.input FROM ${q}.inbox i JOIN ${q}.sessions s USING (session_id)
         WHERE i.session_id = $1 AND i.seq > s.inbox_taken ORDER BY i.seq LIMIT 1`,
          [sessionId],
        ),
      );
      const row = rows[0] as { seq: number; input: string } | undefined;
      if (row === undefined) return undefined;
      return {
        seq: row.seq,
        event: fromStoredJson(row.input, `session '${sessionId}', input ${row.seq}`) as AgentEvent,
      };
    },

    async take(client, sessionId, seq) {
      await client.query(
        `UPDATE ${q}.sessions SET inbox_taken = greatest(inbox_taken, $2) WHERE session_id = $1`,
        [sessionId, seq],
      );
    },
  };
}
