/**
 * What persistence offers the rest of the package: the session stores (memory, SQLite,
 * PostgreSQL) behind one interface, opening a stored session, the one recorder every driver of a
 * session records through, pure mode made durable (`SessionCore`), and loading an optional peer.
 */
export { CHART_VERSION, newSessionHeader, PACKAGE_VERSION } from './chartVersion.js';
export { importOptionalPeer } from './importOptionalPeer.js';
export { createMemorySessionStore, type MemorySessionStoreOptions } from './memorySessionStore.js';
export { type ForkedSession, forkSession, type ForkSessionOptions } from './forkSession.js';
export { type OpenedSession, type OpenSessionOptions, openSession } from './openSession.js';
export { quoteSchemaName } from './postgresMigrations.js';
export {
  asStoreFailure,
  inTransaction,
  openPostgresPool,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from './postgresPool.js';
export {
  createPostgresSessionStore,
  type PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgresSessionStore.js';
export { recordActor } from './recordActor.js';
export { SessionCore } from './sessionCore.js';
export type { SessionLog } from './sessionLog.js';
export { type ChartView, SessionRecorder } from './sessionRecorder.js';
export type {
  Checkpoint,
  CheckpointContext,
  SessionHeader,
  SessionStore,
  SessionSummary,
  SessionWrite,
  StoredEntry,
  StoredSession,
  TranscriptRecord,
  TranscriptRecordBody,
} from './sessionStore.js';
export { createSqliteSessionStore, type SqliteSessionStoreOptions } from './sqliteSessionStore.js';
export { checkSessionId, fromStoredJson, sessionNotFound, toStoredJson } from './storeRules.js';
export {
  childLink,
  type SubagentLink,
  subagentLinkOf,
  subagentSessionConfig,
  subagentSessionId,
  sessionTree,
} from './subagentSessions.js';
