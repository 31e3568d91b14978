/**
 * Talking to sessions that workers drive, from any process (a worker, an HTTP front end, a test):
 * create a session, send it input, wait for a drive's result, read a drive's event stream.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import {
  newSessionHeader,
  createPostgresSessionStore,
  importOptionalPeer,
  openPostgresPool,
  type PostgresPool,
  type PostgresSessionStore,
} from '../persistence/index.js';
import type { AgentEvent } from '../machine/index.js';
import type { DriveResult, DriveStreamValue } from './driveSession.js';
import { DRIVE_STREAM } from './driveSession.js';
import { withIdleTransactionTimeout } from './idleTransactionTimeout.js';
import { driveWorkflowId } from './driveIds.js';
import { followTurn, type TurnSource, type TurnStreamValue } from './followTurn.js';
import { createSessionInbox, type SessionInbox } from './sessionInbox.js';

/** The DBOS queue sessions are driven from. */
export const SESSION_QUEUE = 'agent-statechart-sessions';
/** The registered name of the drive workflow. */
export const DRIVE_WORKFLOW = 'agent-statechart.driveSession';
/** The application version every worker and client of this package registers and enqueues under. */
export const DRIVE_APP_VERSION = 'agent-statechart-1';

/**
 * Options of {@link connectSessionClient}.
 *
 * @example
 * const options: SessionClientOptions = { connectionString: process.env.DATABASE_URL! };
 */
export interface SessionClientOptions {
  /** The PostgreSQL the workers use. */
  connectionString: string;
  /** The sessions' schema. Default `agent_statechart`. */
  schema?: string;
  /** DBOS's application name, the workers' one. Default `agent-statechart`. */
  applicationName?: string;
}

/**
 * Options of {@link SessionClient.send}.
 *
 * @example
 * const key = randomUUID(); // made once per input, kept across retries
 * const sent = await client.send('alice-1', event, { idempotencyKey: key }).catch(() =>
 *   client.send('alice-1', event, { idempotencyKey: key }),
 * );
 */
export interface SendOptions {
  /**
   * The caller's name for this input, unique within the session (1 to 200 characters). A send
   * with a key the session already stored an input under stores and enqueues nothing: it answers
   * that input's `inboxSeq` and `workflowId`, however often and however concurrently it is
   * repeated. Given with a different event, the send is refused with `INVALID_OPTION`.
   */
  idempotencyKey?: string;
}

/**
 * A connection to the sessions the workers drive.
 *
 * @example
 * const client = await connectSessionClient({ connectionString });
 * await client.createSession('alice-1');
 * const { workflowId } = await client.send('alice-1', { type: 'UserInput', message: { role: 'user', content: 'hi' } });
 * const result = await client.result(workflowId);
 */
export interface SessionClient {
  readonly store: PostgresSessionStore;
  /** Starts a session with an empty log. */
  createSession(sessionId: string, metadata?: Record<string, unknown>): Promise<void>;
  /**
   * Puts an input in the session's inbox and enqueues a drive of the session, in one transaction:
   * the input is not stored without a drive coming for it, nor the other way round. A send that
   * failed without saying whether it was stored (`STORE_FAILED`, a connection lost at commit) is
   * retried safely with the same {@link SendOptions.idempotencyKey}.
   */
  send(
    sessionId: string,
    event: AgentEvent,
    options?: SendOptions,
  ): Promise<{ inboxSeq: number; workflowId: string }>;
  /** The result of a drive, once it is done. */
  result(workflowId: string): Promise<DriveResult>;
  /** What a drive streams, from value number `offset` on, until the drive ends. */
  events(workflowId: string, offset?: number): AsyncGenerator<DriveStreamValue>;
  /**
   * What the drive `workflowId` and every drive of its session's subagents after it stream, as
   * one stream, each value tagged with its session (and a subagent's link): the drives a
   * subagent's answer wakes and those an approval sent to a subagent starts are followed too.
   * Ends once the session rests with no subagent at work and every drive followed has ended.
   */
  followTurn(workflowId: string): AsyncGenerator<TurnStreamValue>;
  close(): Promise<void>;
}

/** A client holds no transaction open while it waits; DBOS's own default, made explicit. */
const CLIENT_IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Connects to the sessions of a service of workers (see `startSessionWorker`).
 *
 * @example
 * const client = await connectSessionClient({ connectionString: process.env.DATABASE_URL! });
 */
export async function connectSessionClient(options: SessionClientOptions): Promise<SessionClient> {
  const { DBOSClient } = await importOptionalPeer(
    '@dbos-inc/dbos-sdk',
    'connectSessionClient',
    () => import('@dbos-inc/dbos-sdk'),
  );
  const schema = options.schema ?? 'agent_statechart';
  const pool = openPostgresPool(options.connectionString, 10);
  const store = createPostgresSessionStore({ pool, schema });
  const dbos = await DBOSClient.create({
    systemDatabaseUrl: withIdleTransactionTimeout(
      options.connectionString,
      CLIENT_IDLE_TRANSACTION_TIMEOUT_MS,
    ),
    applicationName: options.applicationName ?? 'agent-statechart',
  });
  return sessionClient(store, createSessionInbox(pool, schema), dbos, pool);
}

/**
 * A client over connections that already exist (a worker's own).
 *
 * @example
 * const client = sessionClient(store, inbox, dbosClient, pool);
 */
export function sessionClient(
  store: PostgresSessionStore,
  inbox: SessionInbox,
  dbos: DBOSClient,
  pool: PostgresPool,
): SessionClient {
  const events = (workflowId: string, offset = 0) =>
    dbos.readStream<DriveStreamValue>(workflowId, DRIVE_STREAM, {
      offset,
      pollingIntervalMs: 200,
    });
  return {
    store,
    createSession: (sessionId, metadata) =>
      store.create(newSessionHeader(sessionId, Date.now(), metadata)),
    send: (sessionId, event, options) => sendInput(inbox, dbos, sessionId, event, options),
    result: (workflowId) =>
      dbos.retrieveWorkflow<DriveResult>(workflowId).getResult({ pollingIntervalMs: 100 }),
    events,
    followTurn: (workflowId) => followTurn(turnSource(store, dbos, events), workflowId),
    async close() {
      await dbos.destroy();
      await store.close();
      await pool.end();
    },
  };
}

/**
 * What following a turn reads, through a client's connections; `events` reads a drive's stream.
 *
 * @example
 * for await (const value of followTurn(turnSource(store, dbos, events), workflowId)) show(value);
 */
export function turnSource(
  store: PostgresSessionStore,
  dbos: Pick<DBOSClient, 'getWorkflow' | 'listWorkflows'>,
  events: (workflowId: string) => AsyncIterable<DriveStreamValue>,
): TurnSource {
  return {
    events,
    enqueuedAt: async (workflowId) => (await dbos.getWorkflow(workflowId))?.createdAt,
    async drives(prefixes, since) {
      const found = await dbos.listWorkflows({
        workflow_id_prefix: prefixes,
        startTime: new Date(since).toISOString(),
        loadInput: false,
        loadOutput: false,
      });
      return found.map((workflow) => workflow.workflowID);
    },
    metadataOf: async (sessionId) => (await store.load(sessionId))?.header.metadata,
  };
}

/**
 * Puts `event` in the session's inbox and enqueues the drive that takes it, in one transaction:
 * what `SessionClient.send` does, and what a drive does to start a subagent's session on its task.
 *
 * @example
 * const { workflowId } = await sendInput(inbox, dbos, 'alice-1', event, { idempotencyKey: 'req-1' });
 */
export async function sendInput(
  inbox: SessionInbox,
  dbos: DBOSClient,
  sessionId: string,
  event: AgentEvent,
  options?: SendOptions & { taskAnswer?: boolean },
): Promise<{ inboxSeq: number; workflowId: string }> {
  const { seq } = await inbox.put(
    sessionId,
    event,
    async (transaction, seq) => {
      await dbos.enqueueInTransaction(
        // DBOS takes pg's client; the pool hands out exactly that.
        transaction as unknown as Parameters<DBOSClient['enqueueInTransaction']>[0],
        driveOptions(sessionId, driveWorkflowId(sessionId, seq)),
        sessionId,
      );
    },
    options,
  );
  return { inboxSeq: seq, workflowId: driveWorkflowId(sessionId, seq) };
}

/**
 * Enqueues a drive of the session under `workflowId` with no input of its own: it drives what
 * the session's log says is left to do. Enqueued once, however often it is asked for (DBOS keeps
 * the first workflow of an id).
 *
 * @example
 * await enqueueDrive(dbos, 'alice-1', subagentWakeWorkflowId('alice-1', 'toolu_1'));
 */
export async function enqueueDrive(
  dbos: DBOSClient,
  sessionId: string,
  workflowId: string,
): Promise<void> {
  await dbos.enqueue(driveOptions(sessionId, workflowId), sessionId);
}

function driveOptions(sessionId: string, workflowId: string) {
  return {
    queueName: SESSION_QUEUE,
    workflowName: DRIVE_WORKFLOW,
    workflowID: workflowId,
    queuePartitionKey: sessionId,
    appVersion: DRIVE_APP_VERSION,
  };
}
