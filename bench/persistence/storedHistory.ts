/**
 * Histories to record a turn on top of: a session of n prior messages, recorded once through
 * `SessionCore` on the memory store (turn by turn, as a real session is), then copied as it was
 * stored — every entry of its log, its transcript records and its checkpoint — into as many
 * sessions of a SQLite file as a sample needs, in one write each, through the store interface.
 */
import {
  type AgentCore,
  CHART_VERSION,
  createMemorySessionStore,
  createSqliteSessionStore,
  type Message,
  SessionCore,
  type SessionStore,
  type SessionWrite,
} from '../../src/index.js';
import { DURABLE_TOOL_SPECS, durableTurn, PRIOR_SIZES, shortExchange } from './durableTurn.js';
import { runDurableTurn } from './sessionCoreTurn.js';

/** The chart's configuration every durable subject runs with. */
export const DURABLE_CONFIG = { tools: DURABLE_TOOL_SPECS } satisfies NonNullable<
  ConstructorParameters<typeof AgentCore>[0]
>;

/** A recorded history: the write that stores it, and the transcript it makes. */
export interface StoredHistory {
  write: SessionWrite;
  messages: Message[];
  createdAt: number;
}

/** Records a session of `n` messages (n even): n ÷ 4 turns, and a short exchange for the rest. */
export async function recordHistory(n: number): Promise<StoredHistory> {
  if (n % 2 !== 0) throw new Error(`a history ends on the model's answer: ${n} is odd`);
  const store = createMemorySessionStore();
  const session = await SessionCore.open(store, 'history', { config: DURABLE_CONFIG });
  const turns = Math.floor(n / 4);
  for (let turn = 0; turn < turns; turn++) {
    await runDurableTurn(session, durableTurn(turn, PRIOR_SIZES));
  }
  if (n % 4 === 2) await runDurableTurn(session, shortExchange(turns));
  const messages = session.core.context.messages;
  if (messages.length !== n) throw new Error(`history: recorded ${messages.length}, not ${n}`);
  const stored = await store.load('history');
  if (stored?.checkpoint === undefined) throw new Error('history: no checkpoint at rest');
  const entries = await store.entries('history');
  await store.close();
  return {
    write: { after: 0, entries, transcript: stored.transcript, checkpoint: stored.checkpoint },
    messages,
    createdAt: stored.header.createdAt,
  };
}

/** Stores `history` as the session `sessionId` of `store`. */
export async function storeHistory(
  store: SessionStore,
  sessionId: string,
  history: StoredHistory,
): Promise<void> {
  await store.create({ sessionId, chartVersion: CHART_VERSION, createdAt: history.createdAt });
  await store.append(sessionId, history.write);
}

/** Writes a SQLite session file holding `history` under each of `sessionIds`. */
export async function writeHistoryFile(
  path: string,
  history: StoredHistory,
  sessionIds: readonly string[],
): Promise<void> {
  const store = createSqliteSessionStore({ path, durability: 'normal' });
  for (const sessionId of sessionIds) await storeHistory(store, sessionId, history);
  await store.close();
}
