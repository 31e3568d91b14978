/**
 * What the SQL stores (SQLite, PostgreSQL) share once a row is read: the same columns become the
 * same values, the same damage is reported the same way, and a write is checked against the
 * session's head and claim by one rule.
 */
import { AgentStatechartError } from '../machine/index.js';
import type {
  Checkpoint,
  SessionHeader,
  SessionSummary,
  SessionWrite,
  StoredEntry,
  TranscriptRecord,
} from './sessionStore.js';
import {
  fromStoredJson,
  storedCheckpoint,
  storedEntry,
  storedRecord,
  storedState,
} from './storeRules.js';

/**
 * A row of the `sessions` table as both SQL stores lay it out (times in milliseconds).
 *
 * @example
 * const row = db.prepare('SELECT * FROM sessions WHERE session_id = ?').get(id) as SessionRow;
 */
export interface SessionRow {
  session_id: string;
  header: string;
  created_at: number;
  updated_at: number;
  head: number;
  checkpoint_seq: number | null;
  checkpoint_state: string | null;
  checkpoint_message_count: number | null;
  checkpoint_context: string | null;
}

/**
 * A row of the `entries` table.
 *
 * @example
 * const rows = statement.all(sessionId, after) as EntryRow[];
 */
export interface EntryRow {
  seq: number;
  at: number;
  kind: string;
  data: string;
}

/**
 * A row of the `transcript` table, its refs as the driver returns them (JSON text or an array).
 *
 * @example
 * const rows = statement.all(sessionId, messageCount) as RecordRow[];
 */
export interface RecordRow {
  message_index: number;
  refs: string | number[];
  body: string;
}

/**
 * Throws `SESSION_FENCED` when `write` carries an epoch other than the session's latest claim,
 * then `SESSION_CONFLICT` when it follows another head than the session's.
 *
 * @example
 * checkWriteAgainst('alice-1', write, { head: 8, epoch: 2 });
 */
export function checkWriteAgainst(
  sessionId: string,
  write: SessionWrite,
  session: { head: number; epoch: number },
): void {
  if (write.epoch !== undefined && write.epoch !== session.epoch) {
    throw new AgentStatechartError(
      'SESSION_FENCED',
      `session '${sessionId}' was claimed by another writer (epoch ${session.epoch}, this write ${write.epoch})`,
    );
  }
  if (write.after !== session.head) {
    throw new AgentStatechartError(
      'SESSION_CONFLICT',
      `session '${sessionId}' moved on: its log ends at ${session.head}, this write follows ${write.after}`,
    );
  }
}

/**
 * Entry rows as entries; throws `SESSION_CORRUPT` for one that cannot be read.
 *
 * @example
 * const entries = entriesFromRows('alice-1', rows);
 */
export function entriesFromRows(sessionId: string, rows: EntryRow[]): StoredEntry[] {
  return rows.map((row) => storedEntry(row, `session '${sessionId}'`));
}

/**
 * The header and checkpoint of a session row; throws `SESSION_CORRUPT` for one that cannot be read.
 *
 * @example
 * const { header, checkpoint } = sessionFromRow(row);
 */
export function sessionFromRow(row: SessionRow): {
  header: SessionHeader;
  checkpoint: Checkpoint | undefined;
} {
  const what = `session '${row.session_id}'`;
  const header = fromStoredJson(row.header, `${what}, header`) as SessionHeader;
  if (row.checkpoint_seq === null) return { header, checkpoint: undefined };
  return {
    header,
    checkpoint: storedCheckpoint(
      {
        seq: row.checkpoint_seq,
        state: row.checkpoint_state,
        messageCount: row.checkpoint_message_count ?? 0,
        context: row.checkpoint_context,
      },
      what,
    ),
  };
}

/**
 * The transcript records a checkpoint covers, from rows in index order; throws `SESSION_CORRUPT`
 * when one is missing or cannot be read.
 *
 * @example
 * const transcript = transcriptFromRows('alice-1', rows, checkpoint?.messageCount ?? 0);
 */
export function transcriptFromRows(
  sessionId: string,
  rows: RecordRow[],
  messageCount: number,
): TranscriptRecord[] {
  const what = `session '${sessionId}'`;
  const transcript: TranscriptRecord[] = [];
  for (const [index, row] of rows.entries()) {
    if (row.message_index !== index) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `${what} has lost transcript record ${index}`,
      );
    }
    const refs =
      typeof row.refs === 'string'
        ? (fromStoredJson(row.refs, `${what}, transcript record ${index}`) as number[])
        : row.refs;
    transcript.push(storedRecord(index, refs, row.body, what));
  }
  if (transcript.length < messageCount) {
    throw new AgentStatechartError('SESSION_CORRUPT', `${what} has lost transcript records`);
  }
  return transcript;
}

/**
 * A line of `list` from a session row.
 *
 * @example
 * const summaries = rows.map(summaryFromRow);
 */
export function summaryFromRow(
  row: Omit<SessionRow, 'checkpoint_context' | 'checkpoint_seq'>,
): SessionSummary {
  const header = fromStoredJson(row.header, `session '${row.session_id}', header`) as SessionHeader;
  return {
    sessionId: row.session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    head: row.head,
    state:
      row.checkpoint_state === null
        ? undefined
        : storedState(row.checkpoint_state, `session '${row.session_id}'`),
    messageCount: row.checkpoint_message_count ?? 0,
    ...(header.metadata === undefined ? {} : { metadata: header.metadata }),
  };
}
