/**
 * What one durable turn writes, measured three ways on a fresh copy of a template file:
 *
 * - logical bytes: the JSON text the store is handed (ours: counted by a wrapping store;
 *   SqliteSaver: read off its tables, the serialised checkpoints and metadata `put` stores and
 *   the values `putWrites` stores);
 * - WAL bytes: the write-ahead log is emptied (`wal_checkpoint(TRUNCATE)`) before the turn, so
 *   its size after the turn is every page the turn's transactions wrote (4 KiB each, plus a
 *   24-byte frame header);
 * - file growth: how much bigger the database file is once that WAL is folded back in.
 *
 * The turn's new content, which the logical bytes are compared with, is the JSON text of the
 * four messages it added to the subject's transcript.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Message } from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';
import { countingStore, noBytes, totalBytes, type WrittenBytes } from './countingStore.js';
import { type DurableSubject, OURS } from './durablePackage.js';
import {
  langGraphStoredBytes,
  langGraphTurn,
  openLangGraphFile,
  threadMessages,
} from './langGraphSqlite.js';
import { sessionIds } from './persistenceCases.js';
import { runDurableTurn } from './sessionCoreTurn.js';
import { copyOf, templatePath } from './sessionFiles.js';
import { DURABLE_CONFIG } from './storedHistory.js';

/** One turn's bytes. `parts` says what the logical bytes hold. */
export interface TurnBytes {
  newContent: number;
  logical: number;
  walBytes: number;
  fileGrowth: number;
  parts: Record<string, number>;
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0; // no WAL file yet
  }
};

function newContentOf(messages: readonly Message[]): number {
  return messages
    .slice(-4)
    .reduce((sum, message) => sum + Buffer.byteLength(JSON.stringify(message)), 0);
}

/** Measures the page-level writes of `turn` on the database at `path` (see the file comment). */
async function pageLevel(
  path: string,
  side: Database.Database,
  turn: () => Promise<void>,
): Promise<{ walBytes: number; fileGrowth: number }> {
  side.pragma('wal_checkpoint(TRUNCATE)');
  const before = sizeOf(path) + sizeOf(`${path}-wal`);
  await turn();
  const walBytes = sizeOf(`${path}-wal`);
  side.pragma('wal_checkpoint(TRUNCATE)');
  return { walBytes, fileGrowth: sizeOf(path) + sizeOf(`${path}-wal`) - before };
}

/** One turn on each of the first `sessions` sessions of `subject`'s n-message template. */
export async function ourTurnBytes(
  n: number,
  sessions: number,
  script: TurnScript,
  subject: DurableSubject = OURS,
): Promise<TurnBytes[]> {
  const { createSqliteSessionStore, SessionCore } = await subject.load();
  const file = copyOf(templatePath(subject.kind, n));
  // The default durability: a sync at each commit changes when pages reach the disk, not which.
  const store = countingStore(createSqliteSessionStore({ path: file.path }));
  const side = new Database(file.path);
  const results: TurnBytes[] = [];
  try {
    for (const id of sessionIds(sessions)) {
      const session = await SessionCore.open(store, id, { config: DURABLE_CONFIG });
      store.bytes = noBytes();
      const pages = await pageLevel(file.path, side, () => runDurableTurn(session, script));
      const bytes: WrittenBytes = store.bytes;
      results.push({
        newContent: newContentOf(session.core.context.messages),
        logical: totalBytes(bytes),
        ...pages,
        parts: { ...bytes },
      });
    }
  } finally {
    side.close();
    await store.close();
    file.remove();
  }
  return results;
}

/** One turn on each of the first `threads` threads of LangGraph.js's n-message template. */
export async function langGraphTurnBytes(
  n: number,
  threads: number,
  script: TurnScript,
): Promise<TurnBytes[]> {
  const file = copyOf(templatePath('langGraph', n));
  const graph = openLangGraphFile(file.path, script);
  // The WAL keeps every page of the turn (nothing is folded back in during it); what is written
  // to it does not change.
  graph.db.pragma('wal_autocheckpoint = 0');
  const results: TurnBytes[] = [];
  try {
    for (const id of sessionIds(threads)) {
      const before = langGraphStoredBytes(graph.db);
      const pages = await pageLevel(file.path, graph.db, () => langGraphTurn(graph, id, script));
      const after = langGraphStoredBytes(graph.db);
      const checkpoints = after.checkpoints - before.checkpoints;
      const writes = after.writes - before.writes;
      results.push({
        newContent: newContentOf(await threadMessages(graph, id)),
        logical: checkpoints + writes,
        ...pages,
        parts: {
          checkpoints,
          writes,
          checkpointRows: after.checkpointRows - before.checkpointRows,
          writeRows: after.writeRows - before.writeRows,
        },
      });
    }
  } finally {
    graph.close();
    file.remove();
  }
  return results;
}
