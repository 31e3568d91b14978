/**
 * The rules every session store applies the same way: what a well-formed write is, how values
 * become stored text and back, and which entries a load must return. Kept in one place so the
 * stores differ only in where the bytes go.
 */
import {
  AGENT_STATE_NAMES,
  AgentStatechartError,
  type AgentStateName,
  errorMessage,
} from '../machine/index.js';
import type {
  Checkpoint,
  CheckpointContext,
  SessionHeader,
  SessionWrite,
  StoredEntry,
  TranscriptRecord,
  TranscriptRecordBody,
} from './sessionStore.js';

/**
 * Throws `INVALID_OPTION` unless `sessionId` is a usable id: 1 to 200 characters, no control
 * characters.
 *
 * @example
 * checkSessionId('alice-1');
 */
export function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (
    typeof sessionId !== 'string' ||
    sessionId.length === 0 ||
    sessionId.length > 200 ||
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(sessionId)
  ) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `a session id must be 1 to 200 characters without control characters; got ${errorMessage(sessionId)}`,
    );
  }
}

/**
 * The `SESSION_NOT_FOUND` every store and reader gives for an id it has no session under.
 *
 * @example
 * if (row === undefined) throw sessionNotFound(sessionId);
 */
export function sessionNotFound(sessionId: string): AgentStatechartError {
  return new AgentStatechartError('SESSION_NOT_FOUND', `there is no session '${sessionId}'`);
}

/**
 * The `SESSION_EXISTS` a store's `create` gives for an id that is taken.
 *
 * @example
 * if (sessions.has(header.sessionId)) throw sessionExists(header.sessionId);
 */
export function sessionExists(sessionId: string): AgentStatechartError {
  return new AgentStatechartError('SESSION_EXISTS', `session '${sessionId}' exists already`);
}

/**
 * A failure of a store's driver or server as `STORE_FAILED`, naming `what` failed; an
 * `AgentStatechartError` (a refusal the caller can act on) is returned as it is.
 *
 * @example
 * catch (error) { throw storeFailure('the SQLite session store', error); }
 */
export function storeFailure(what: string, error: unknown): AgentStatechartError {
  if (error instanceof AgentStatechartError) return error;
  return new AgentStatechartError('STORE_FAILED', `${what} failed: ${errorMessage(error)}`, {
    cause: error,
  });
}

/**
 * Throws `INVALID_OPTION` unless `header` can start a session.
 *
 * @example
 * checkHeader({ sessionId: 'a', chartVersion: 'c1', createdAt: Date.now() });
 */
export function checkHeader(header: SessionHeader): void {
  checkSessionId(header?.sessionId);
  if (typeof header.chartVersion !== 'string' || header.chartVersion.length === 0) {
    throw new AgentStatechartError('INVALID_OPTION', 'a session header needs its chartVersion');
  }
  if (!Number.isFinite(header.createdAt)) {
    throw new AgentStatechartError('INVALID_OPTION', 'a session header needs createdAt, in ms');
  }
}

/**
 * Throws `INVALID_OPTION` unless `write` is well formed: entries numbered from `after + 1`
 * without gaps, transcript records in order, a checkpoint no further than the last entry.
 *
 * @example
 * checkWrite({ after: 0, entries: [{ seq: 1, at: Date.now(), kind: 'event', data }] });
 */
export function checkWrite(write: SessionWrite): void {
  const fail = (problem: string): never => {
    throw new AgentStatechartError('INVALID_OPTION', `malformed session write: ${problem}`);
  };
  if (!Number.isInteger(write?.after) || write.after < 0) fail('after must be a whole number');
  if (!Array.isArray(write.entries)) fail('entries must be an array');
  write.entries.forEach((entry, index) => {
    if (entry?.seq !== write.after + index + 1) {
      fail(
        `entry ${index} has seq ${errorMessage(entry?.seq)}; expected ${write.after + index + 1}`,
      );
    }
    const kind = (entry as { kind?: unknown }).kind;
    if (kind !== 'event' && kind !== 'started') fail(`entry ${entry.seq} has no kind`);
    if (!Number.isFinite(entry.at)) fail(`entry ${entry.seq} has no time`);
  });
  const head = write.after + write.entries.length;
  let lastIndex = -1;
  for (const record of write.transcript ?? []) {
    if (!Number.isInteger(record?.index) || record.index <= lastIndex) {
      fail('transcript records must have increasing indexes');
    }
    lastIndex = record.index;
    if (
      !Array.isArray(record.refs) ||
      !record.refs.every((ref) => Number.isInteger(ref) && ref >= 1 && ref <= head)
    ) {
      fail(`transcript record ${record.index} refers to entries that do not exist`);
    }
  }
  const checkpoint = write.checkpoint;
  if (checkpoint !== undefined) {
    if (!Number.isInteger(checkpoint.seq) || checkpoint.seq < 0 || checkpoint.seq > head) {
      fail('a checkpoint must be no further than the last entry');
    }
    if (!AGENT_STATE_NAMES.includes(checkpoint.state)) fail('a checkpoint needs a state name');
    if (!Number.isInteger(checkpoint.messageCount) || checkpoint.messageCount < 0) {
      fail('a checkpoint needs its messageCount');
    }
  }
  if (write.epoch !== undefined && !Number.isInteger(write.epoch))
    fail('epoch must be a whole number');
}

/**
 * `value` as stored text; throws `INVALID_OPTION` (naming `what`) for a value JSON cannot hold.
 *
 * @example
 * toStoredJson(entry.data, 'entry 3'); // '{"type":"Interrupt"}'
 */
export function toStoredJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new AgentStatechartError('INVALID_OPTION', `${what} is not JSON: ${errorMessage(error)}`);
  }
  if (text === undefined) {
    throw new AgentStatechartError('INVALID_OPTION', `${what} is not JSON: got ${typeof value}`);
  }
  return text;
}

/**
 * A write with every value turned into stored text: what a store puts in its rows.
 *
 * @example
 * const text: StoredWriteText = toStoredWrite(write);
 */
export interface StoredWriteText {
  entries: Array<{ seq: number; at: number; kind: StoredEntry['kind']; data: string }>;
  transcript: Array<{ index: number; refs: number[]; body: string }>;
  checkpoint?: { seq: number; state: AgentStateName; messageCount: number; context: string };
}

/**
 * Turns every value of a checked write into stored text, before a store changes anything, so a
 * value JSON cannot hold (`INVALID_OPTION`) writes nothing.
 *
 * @example
 * checkWrite(write);
 * const { entries, transcript, checkpoint } = toStoredWrite(write);
 */
export function toStoredWrite(write: SessionWrite): StoredWriteText {
  const stored: StoredWriteText = {
    entries: write.entries.map((entry) => ({
      seq: entry.seq,
      at: entry.at,
      kind: entry.kind,
      data: toStoredJson(entry.data, `entry ${entry.seq}`),
    })),
    transcript: (write.transcript ?? []).map((record) => ({
      index: record.index,
      refs: [...record.refs],
      body: toStoredJson(record.body, `transcript record ${record.index}`),
    })),
  };
  if (write.checkpoint !== undefined) {
    const { seq, state, messageCount, context } = write.checkpoint;
    stored.checkpoint = {
      seq,
      state,
      messageCount,
      context: toStoredJson(context, 'the checkpoint'),
    };
  }
  return stored;
}

/**
 * Stored text as a value; throws `SESSION_CORRUPT` (naming `what`) when it cannot be read.
 *
 * @example
 * fromStoredJson('{"type":"Interrupt"}', 'session a, entry 3');
 */
export function fromStoredJson(text: unknown, what: string): unknown {
  if (typeof text !== 'string') {
    throw new AgentStatechartError('SESSION_CORRUPT', `${what} is missing or not text`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AgentStatechartError(
      'SESSION_CORRUPT',
      `${what} is not valid JSON (${errorMessage(error)}); it was left as it is`,
    );
  }
}

/**
 * An entry read back from a store: its data parsed from the stored text. What the data says is
 * checked where it is used (the chart checks every event it replays).
 *
 * @example
 * const entry = storedEntry({ seq: 1, at, kind: 'event', data: text }, 'session a');
 */
export function storedEntry(
  row: { seq: number; at: number; kind: string; data: unknown },
  what: string,
): StoredEntry {
  if (row.kind !== 'event' && row.kind !== 'started') {
    throw new AgentStatechartError(
      'SESSION_CORRUPT',
      `${what}, entry ${row.seq} has an unknown kind '${row.kind}'`,
    );
  }
  const data = fromStoredJson(row.data, `${what}, entry ${row.seq}`);
  return { seq: row.seq, at: row.at, kind: row.kind, data } as StoredEntry;
}

/**
 * A checkpoint read back from a store. Its context is checked when the chart is restored from it.
 *
 * @example
 * const checkpoint = storedCheckpoint(row, 'session a');
 */
export function storedCheckpoint(
  row: { seq: number; state: unknown; messageCount: number; context: unknown },
  what: string,
): Checkpoint {
  return {
    seq: row.seq,
    state: storedState(row.state, `${what}, checkpoint`),
    messageCount: row.messageCount,
    context: fromStoredJson(row.context, `${what}, checkpoint`) as CheckpointContext,
  };
}

/**
 * A transcript record read back from a store. Its body is checked when the transcript is rebuilt.
 *
 * @example
 * const record = storedRecord(index, refs, row.body, 'session a');
 */
export function storedRecord(
  index: number,
  refs: number[],
  body: unknown,
  what: string,
): TranscriptRecord {
  return {
    index,
    refs,
    body: fromStoredJson(body, `${what}, transcript record ${index}`) as TranscriptRecordBody,
  };
}

/**
 * Throws `SESSION_CORRUPT` unless a stored state name is one of the seven.
 *
 * @example
 * storedState('WaitingForUserInput', 'session a');
 */
export function storedState(value: unknown, what: string): AgentStateName {
  if (!AGENT_STATE_NAMES.includes(value as AgentStateName)) {
    throw new AgentStatechartError(
      'SESSION_CORRUPT',
      `${what} has an unknown state ${errorMessage(value)}`,
    );
  }
  return value as AgentStateName;
}

/**
 * The entry seqs a load returns: those the transcript records point at, and every entry after
 * the checkpoint.
 *
 * @example
 * const needed = neededEntries(checkpoint, records); // { refs: Set { 1, 3 }, after: 9 }
 */
export function neededEntries(
  checkpoint: Checkpoint | undefined,
  transcript: readonly TranscriptRecord[],
): { refs: Set<number>; after: number } {
  const refs = new Set<number>();
  for (const record of transcript) for (const ref of record.refs) refs.add(ref);
  return { refs, after: checkpoint?.seq ?? 0 };
}

/**
 * Entries of a load in seq order, without duplicates.
 *
 * @example
 * sortEntries([...referenced, ...tail]);
 */
export function sortEntries(entries: StoredEntry[]): StoredEntry[] {
  const bySeq = new Map<number, StoredEntry>();
  for (const entry of entries) bySeq.set(entry.seq, entry);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Runs `work` now and hands its result (or its throw) back as a promise: the shape of the store
 * interface for stores whose work is synchronous, without deferring it.
 *
 * @example
 * load: (sessionId) => settleNow(() => readSession(sessionId)),
 */
export function settleNow<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(errorMessage(error)));
  }
}
