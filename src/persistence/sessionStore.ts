/**
 * Where durable sessions live: one small interface every store implements (memory, SQLite,
 * PostgreSQL) and one conformance suite every store passes. A store only keeps what it is given;
 * what to write and how to read a session back is decided above it (`sessionRecords.ts`).
 *
 * A session is an append-only log of what came from outside the chart (entries), plus, from time
 * to time, a compact checkpoint: the chart's state without its transcript, and transcript records
 * that say where each message comes from (usually an entry of the log, by sequence number). So
 * what is written grows with what is new, never with the whole conversation.
 *
 * A compaction replaces the transcript's older part with a summary: the log keeps every event
 * (the whole history stays readable), and the next checkpoint writes the records of the active
 * transcript again from index 0. A store keeps one record per index and reads only those below
 * the checkpoint's `messageCount`, so records left over from the longer transcript are never read,
 * and a load reads only the entries the active transcript needs.
 */
import type {
  AgentEvent,
  AgentStateName,
  ContentBlock,
  EffectStart,
  Message,
  StoredContext,
} from '../machine/index.js';

/**
 * What a session was created with. `chartVersion` is the fingerprint of the chart that recorded
 * the log: a log is only replayed by the chart that wrote it.
 *
 * @example
 * const header: SessionHeader = { sessionId: 'alice-1', chartVersion: CHART_VERSION, createdAt: Date.now() };
 */
export interface SessionHeader {
  sessionId: string;
  chartVersion: string;
  /**
   * The version of agent-statechart that created the session, so one that cannot replay it can
   * say which version can. Absent in sessions of versions that did not note it.
   */
  packageVersion?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Anything the application wants to keep with the session (a title, an owner). */
  metadata?: Record<string, unknown>;
}

/**
 * One entry of a session's log. `seq` counts from 1 without gaps. `at` is when it was recorded
 * (milliseconds since the epoch): data for whoever reads the log, never read by the chart.
 *
 * - `event`: an event the chart took (user input, a model response, a tool outcome, an approval,
 *   a mode change, a hook result, an interrupt, a resume, a model call's stream where it mattered,
 *   …), exactly as the chart took it;
 * - `started`: a side effect about to start (a model call, a tool call, the hook, a retry
 *   backoff), recorded before it starts, so a restart knows what may have happened.
 *
 * @example
 * const entry: StoredEntry = { seq: 1, at: Date.now(), kind: 'event', data: { type: 'UserInput', message } };
 */
export type StoredEntry =
  | { seq: number; at: number; kind: 'event'; data: AgentEvent }
  | { seq: number; at: number; kind: 'started'; data: EffectStart };

/**
 * Where message `index` of the transcript comes from: `refs` are the entries its `body` points
 * at (the store returns them with the session), so a message taken from the log is not stored
 * twice.
 *
 * @example
 * const record: TranscriptRecord = { index: 0, refs: [1], body: { from: 'message', ref: 1 } };
 */
export interface TranscriptRecord {
  index: number;
  refs: number[];
  body: TranscriptRecordBody;
}

/**
 * How a transcript record builds its message: the user input of entry `ref`, the response of
 * entry `ref`, a tool results message from the outcomes of the entries it names (or blocks kept
 * as they are), or the message itself (one the chart made: text an interrupt kept, results of
 * calls that never ran).
 */
export type TranscriptRecordBody =
  | { from: 'message'; ref: number }
  | { from: 'response'; ref: number }
  | { from: 'toolResults'; parts: Array<{ ref: number } | { block: ContentBlock }> }
  | { message: Message };

/**
 * The chart's state as of entry `seq`: its top-level state and its context without the
 * transcript (whose first `messageCount` messages the transcript records give) and without what
 * a restore drops anyway (text a model call was streaming, tool progress).
 *
 * @example
 * const checkpoint: Checkpoint = { seq: 9, state: 'WaitingForUserInput', messageCount: 4, context };
 */
export interface Checkpoint {
  seq: number;
  state: AgentStateName;
  messageCount: number;
  context: CheckpointContext;
}

/** The context a checkpoint keeps: everything but the configuration and the transcript. */
export type CheckpointContext = Omit<StoredContext, 'messages'>;

/**
 * One atomic write: entries appended after `after` (the writer's view of the log's head: the
 * write is refused when another writer appended since), with transcript records and a checkpoint
 * when the writer takes one. Either all of it is stored or none of it.
 *
 * @example
 * await store.append('alice-1', { after: 8, entries: [entry], transcript, checkpoint });
 */
export interface SessionWrite {
  after: number;
  /**
   * The writer's claim on the session (from `claim`): refused with `SESSION_FENCED` once a newer
   * claim was made, so a writer that lost the session (paused past its lease, then woken) cannot
   * write to it. Omitted: no claim is checked.
   */
  epoch?: number;
  entries: StoredEntry[];
  /** Records to store, replacing any kept under the same index. */
  transcript?: TranscriptRecord[];
  checkpoint?: Checkpoint;
}

/**
 * A session as `load` returns it: the header, the head of the log, the latest checkpoint, the
 * transcript records it covers, and the entries needed to rebuild it — those the records point at
 * and every entry after the checkpoint, in order.
 *
 * @example
 * const session = await store.load('alice-1');
 * session?.head; // the seq of the last entry
 */
export interface StoredSession {
  header: SessionHeader;
  head: number;
  checkpoint: Checkpoint | undefined;
  transcript: TranscriptRecord[];
  entries: StoredEntry[];
}

/**
 * A line of `list`.
 *
 * @example
 * for (const session of await store.list()) console.log(session.sessionId, session.state);
 */
export interface SessionSummary {
  sessionId: string;
  createdAt: number;
  /** When the last entry was recorded. */
  updatedAt: number;
  head: number;
  /** As of the latest checkpoint. */
  state: AgentStateName | undefined;
  messageCount: number;
  metadata?: Record<string, unknown>;
}

/**
 * A session store. Every method is async and never leaves a session half-written: `append` is
 * atomic, and a write that conflicts with another writer, names an unknown session or carries a
 * value that is not JSON fails with an {@link AgentStatechartError} and changes nothing.
 *
 * Error codes: `SESSION_EXISTS` (create), `SESSION_NOT_FOUND` (append, entries),
 * `SESSION_CONFLICT` (append after a head that moved), `SESSION_FENCED` (append with an epoch
 * older than the latest claim), `SESSION_CORRUPT` (stored data that cannot
 * be read: reported, never repaired or dropped), `INVALID_OPTION` (a malformed write or id).
 *
 * @example
 * const store = createSqliteSessionStore({ path: '.agent-statechart/sessions.db' });
 * await store.create({ sessionId: 'alice-1', chartVersion: CHART_VERSION, createdAt: Date.now() });
 */
export interface SessionStore {
  /** Starts a session with an empty log. */
  create(header: SessionHeader): Promise<void>;
  /**
   * Claims the session for one writer: returns a new epoch, higher than every earlier one, and
   * from then on writes carrying an older epoch are refused.
   */
  claim(sessionId: string): Promise<number>;
  /** Appends one write atomically (see {@link SessionWrite}). */
  append(sessionId: string, write: SessionWrite): Promise<void>;
  /** The session, ready to rebuild; `undefined` when there is none by that id. */
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Entries in order, after `after` (default 0), at most `limit` of them. */
  entries(sessionId: string, options?: { after?: number; limit?: number }): Promise<StoredEntry[]>;
  /** Sessions, most recently updated first. */
  list(options?: { limit?: number }): Promise<SessionSummary[]>;
  /** Removes a session and everything in it; `false` when there was none. */
  delete(sessionId: string): Promise<boolean>;
  /** Releases the store's resources. */
  close(): Promise<void>;
}
