/**
 * LangGraph.js with its SQLite checkpointer (`SqliteSaver` from
 * `@langchain/langgraph-checkpoint-sqlite`, on better-sqlite3 like our store) running the same
 * loop as the per-turn table (bench/perTurn/langGraphLoop.ts: model → tools → model, instant
 * model and tool), one thread per session, each turn one `invoke` with the user's message, with
 * LangGraph's default durability. What it stores is read from its own tables: the serialised
 * checkpoints and metadata that `put` writes and the values that `putWrites` writes.
 */
import { START } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import type { Message } from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';
import { compileLoop } from '../perTurn/langGraphLoop.js';

/** A SqliteSaver over one database file, and the loop compiled with it. */
export interface LangGraphFile {
  db: Database.Database;
  graph: ReturnType<typeof compileLoop>;
  close(): void;
}

export function openLangGraphFile(path: string, script: TurnScript): LangGraphFile {
  const db = new Database(path);
  const graph = compileLoop(script, new SqliteSaver(db));
  return { db, graph, close: () => db.close() };
}

const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId } });

/** Starts `threadId` from `messages`, as a thread that has had them (one checkpoint). */
export async function seedThread(
  file: LangGraphFile,
  threadId: string,
  messages: readonly Message[],
): Promise<void> {
  await file.graph.updateState(threadConfig(threadId), { messages: messages.slice() }, START);
}

/** One turn of `threadId`: the user's message in, the graph run to its end. */
export async function langGraphTurn(
  file: LangGraphFile,
  threadId: string,
  script: TurnScript,
): Promise<void> {
  await file.graph.invoke({ messages: [script.user] }, threadConfig(threadId));
}

/** The transcript `threadId` holds now. */
export async function threadMessages(file: LangGraphFile, threadId: string): Promise<Message[]> {
  const state = await file.graph.getState(threadConfig(threadId));
  return (state.values as { messages: Message[] }).messages;
}

/** Bytes in SqliteSaver's tables: checkpoints with their metadata, and pending writes. */
export function langGraphStoredBytes(db: Database.Database): {
  checkpoints: number;
  writes: number;
  checkpointRows: number;
  writeRows: number;
} {
  const checkpoints = db
    .prepare(
      'SELECT coalesce(sum(length(CAST(checkpoint AS BLOB)) + length(CAST(metadata AS BLOB))), 0) AS bytes, count(*) AS rows FROM checkpoints',
    )
    .get() as { bytes: number; rows: number };
  const writes = db
    .prepare(
      'SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) AS bytes, count(*) AS rows FROM writes',
    )
    .get() as { bytes: number; rows: number };
  return {
    checkpoints: checkpoints.bytes,
    writes: writes.bytes,
    checkpointRows: checkpoints.rows,
    writeRows: writes.rows,
  };
}
