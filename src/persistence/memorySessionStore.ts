/**
 * The in-memory session store: the reference every other store is measured against, and the one
 * for tests. Values are kept as JSON text, so it refuses and isolates exactly what a database
 * would: nothing a caller changes after a write reaches the store.
 */
import { AgentStatechartError } from '../machine/index.js';
import type {
  Checkpoint,
  SessionHeader,
  SessionStore,
  SessionSummary,
  SessionWrite,
  StoredEntry,
  StoredSession,
  TranscriptRecord,
} from './sessionStore.js';
import {
  checkHeader,
  checkSessionId,
  checkWrite,
  fromStoredJson,
  neededEntries,
  sessionExists,
  sessionNotFound,
  settleNow,
  storedCheckpoint,
  storedEntry,
  storedRecord,
  storedState,
  toStoredJson,
  toStoredWrite,
} from './storeRules.js';
import { checkWriteAgainst } from './storedRows.js';

interface Row {
  header: string;
  head: number;
  epoch: number;
  updatedAt: number;
  entries: Map<number, { at: number; kind: StoredEntry['kind']; data: string }>;
  transcript: Map<number, { refs: number[]; body: string }>;
  checkpoint: { seq: number; state: string; messageCount: number; context: string } | undefined;
}

/**
 * Options of {@link createMemorySessionStore}.
 *
 * @example
 * const store = createMemorySessionStore();
 */
export type MemorySessionStoreOptions = Record<string, never>;

/**
 * A session store that keeps everything in this process (gone when it exits).
 *
 * @example
 * const store = createMemorySessionStore();
 * const agent = createAgent({ store, sessionId: 'test-1' });
 */
export function createMemorySessionStore(_options: MemorySessionStoreOptions = {}): SessionStore {
  const sessions = new Map<string, Row>();
  const rowOf = (sessionId: string): Row => {
    checkSessionId(sessionId);
    const row = sessions.get(sessionId);
    if (row === undefined) throw sessionNotFound(sessionId);
    return row;
  };
  const readEntry = (sessionId: string, seq: number, row: Row): StoredEntry => {
    const stored = row.entries.get(seq);
    if (stored === undefined) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `session '${sessionId}' has lost entry ${seq}`,
      );
    }
    return storedEntry({ seq, ...stored }, `session '${sessionId}'`);
  };

  return {
    create(header: SessionHeader) {
      return settleNow(() => {
        checkHeader(header);
        if (sessions.has(header.sessionId)) throw sessionExists(header.sessionId);
        sessions.set(header.sessionId, {
          header: toStoredJson(header, 'the session header'),
          head: 0,
          epoch: 0,
          updatedAt: header.createdAt,
          entries: new Map(),
          transcript: new Map(),
          checkpoint: undefined,
        });
      });
    },

    claim(sessionId) {
      return settleNow(() => {
        const row = rowOf(sessionId);
        row.epoch += 1;
        return row.epoch;
      });
    },

    append(sessionId, write: SessionWrite) {
      return settleNow(() => {
        const row = rowOf(sessionId);
        checkWrite(write);
        const { entries, transcript, checkpoint } = toStoredWrite(write);
        checkWriteAgainst(sessionId, write, row);
        for (const entry of entries) row.entries.set(entry.seq, entry);
        for (const record of transcript) row.transcript.set(record.index, record);
        if (checkpoint) row.checkpoint = checkpoint;
        row.head += entries.length;
        if (entries.length > 0) row.updatedAt = entries.at(-1)!.at;
      });
    },

    load(sessionId): Promise<StoredSession | undefined> {
      return settleNow((): StoredSession | undefined => {
        checkSessionId(sessionId);
        const row = sessions.get(sessionId);
        if (row === undefined) return undefined;
        const what = `session '${sessionId}'`;
        const header = fromStoredJson(row.header, `${what}, header`) as SessionHeader;
        const checkpoint: Checkpoint | undefined =
          row.checkpoint && storedCheckpoint(row.checkpoint, what);
        const transcript: TranscriptRecord[] = [];
        for (let index = 0; index < (checkpoint?.messageCount ?? 0); index++) {
          const record = row.transcript.get(index);
          if (record === undefined) {
            throw new AgentStatechartError(
              'SESSION_CORRUPT',
              `${what} has lost transcript record ${index}`,
            );
          }
          transcript.push(storedRecord(index, record.refs, record.body, what));
        }
        const { refs, after } = neededEntries(checkpoint, transcript);
        const seqs = [...refs].filter((seq) => seq <= after);
        for (let seq = after + 1; seq <= row.head; seq++) seqs.push(seq);
        const entries = seqs.sort((a, b) => a - b).map((seq) => readEntry(sessionId, seq, row));
        return { header, head: row.head, checkpoint, transcript, entries };
      });
    },

    entries(sessionId, options = {}) {
      return settleNow(() => {
        const row = rowOf(sessionId);
        const from = (options.after ?? 0) + 1;
        const to = Math.min(row.head, from - 1 + (options.limit ?? Number.POSITIVE_INFINITY));
        const entries: StoredEntry[] = [];
        for (let seq = from; seq <= to; seq++) entries.push(readEntry(sessionId, seq, row));
        return entries;
      });
    },

    list(options = {}) {
      return settleNow(() => {
        const summaries: SessionSummary[] = [];
        for (const [sessionId, row] of sessions) {
          const header = fromStoredJson(
            row.header,
            `session '${sessionId}', header`,
          ) as SessionHeader;
          summaries.push({
            sessionId,
            createdAt: header.createdAt,
            updatedAt: row.updatedAt,
            head: row.head,
            state: row.checkpoint
              ? storedState(row.checkpoint.state, `session '${sessionId}'`)
              : undefined,
            messageCount: row.checkpoint?.messageCount ?? 0,
            ...(header.metadata === undefined ? {} : { metadata: header.metadata }),
          });
        }
        summaries.sort(
          (a, b) => b.updatedAt - a.updatedAt || a.sessionId.localeCompare(b.sessionId),
        );
        return summaries.slice(0, options.limit ?? summaries.length);
      });
    },

    delete(sessionId) {
      return settleNow(() => {
        checkSessionId(sessionId);
        return sessions.delete(sessionId);
      });
    },

    close() {
      return settleNow(() => {
        sessions.clear();
      });
    },
  };
}
