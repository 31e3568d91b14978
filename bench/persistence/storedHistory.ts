/**
 * Histories to record a turn on top of: a session of n prior messages, recorded once through
 * `SessionCore` on the memory store (turn by turn, as a real session is), then copied as it was
 * stored — every entry of its log, its transcript records and its checkpoint — into as many
 * sessions of a SQLite file as a sample needs, in one write each, through the store interface.
 * And the same session compacted: its whole log kept, its transcript the summary and the latest
 * messages.
 */
import type {
  AgentCore,
  LlmResponse,
  Message,
  SessionCore,
  SessionStore,
  SessionWrite,
} from '../../src/index.js';
import { type DurableSubject, OURS } from './durablePackage.js';
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
  /** The chart version of the package that recorded it (its sessions are stored under it). */
  chartVersion: string;
}

/**
 * Records a session of `n` messages (n even) with `subject`'s package: n ÷ 4 turns, and a short
 * exchange for the rest.
 */
export async function recordHistory(
  n: number,
  subject: DurableSubject = OURS,
): Promise<StoredHistory> {
  const recorded = await recordTurns(n, subject);
  try {
    return await storedHistoryOf(recorded);
  } finally {
    await recorded.store.close();
  }
}

/**
 * A session of `n` messages compacted on the way: n − 2 messages recorded as `recordHistory`
 * records them, a compaction asked for at rest (`Compact`, its summary call answered with about
 * 2 KB of text), then a short exchange. Its log holds all n messages and the summary call; its
 * transcript, the summary, the latest messages the default `keepRecentTokens` kept and the
 * exchange after it — a session some time after its latest compaction, whose last response said
 * again how big its transcript is.
 */
export async function recordCompactedHistory(n: number): Promise<StoredHistory> {
  const recorded = await recordTurns(n - 2, OURS);
  try {
    const { session } = recorded;
    const asked = await session.handleEvent({ type: 'Compact' });
    const call = asked.find((action) => action.type === 'SendCompactionRequest');
    if (call === undefined) throw new Error('compacted history: the chart did not compact');
    await session.started({ effect: 'llm' });
    const done = await session.handleEvent({ type: 'LlmCompleted', response: SUMMARY_RESPONSE });
    if (!done.some((action) => action.type === 'Compacted')) {
      throw new Error('compacted history: the summary did not compact the transcript');
    }
    await runDurableTurn(session, shortExchange(n));
    const compacted = await storedHistoryOf(recorded);
    if (compacted.messages.length >= n / 10) {
      throw new Error(`compacted history: ${compacted.messages.length} messages kept of ${n}`);
    }
    return compacted;
  } finally {
    await recorded.store.close();
  }
}

/** The summary a compaction of the bench's histories is answered with. */
const SUMMARY_RESPONSE: LlmResponse = {
  message: {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'The user and the agent went through the modules one by one: each was read with read_file and explained. '.repeat(
          20,
        ),
      },
    ],
  },
  stopReason: 'end_turn',
  usage: { input_tokens: 150_000, output_tokens: 600 },
};

interface RecordedTurns {
  session: SessionCore;
  store: SessionStore;
  chartVersion: string;
}

async function recordTurns(n: number, subject: DurableSubject): Promise<RecordedTurns> {
  if (n % 2 !== 0) throw new Error(`a history ends on the model's answer: ${n} is odd`);
  const { CHART_VERSION, createMemorySessionStore, SessionCore } = await subject.load();
  const store = createMemorySessionStore();
  const session = await SessionCore.open(store, 'history', { config: DURABLE_CONFIG });
  const turns = Math.floor(n / 4);
  for (let turn = 0; turn < turns; turn++) {
    await runDurableTurn(session, durableTurn(turn, PRIOR_SIZES));
  }
  if (n % 4 === 2) await runDurableTurn(session, shortExchange(turns));
  const messages = session.core.context.messages;
  if (messages.length !== n) throw new Error(`history: recorded ${messages.length}, not ${n}`);
  return { session, store, chartVersion: CHART_VERSION };
}

/** The session as it is stored now: the write that stores it all again, and its transcript. */
async function storedHistoryOf({ session, store, chartVersion }: RecordedTurns) {
  const stored = await store.load('history');
  if (stored?.checkpoint === undefined) throw new Error('history: no checkpoint at rest');
  const entries = await store.entries('history');
  return {
    write: { after: 0, entries, transcript: stored.transcript, checkpoint: stored.checkpoint },
    messages: session.core.context.messages,
    createdAt: stored.header.createdAt,
    chartVersion,
  };
}

/** Stores `history` as the session `sessionId` of `store`. */
export async function storeHistory(
  store: SessionStore,
  sessionId: string,
  history: StoredHistory,
): Promise<void> {
  const { chartVersion, createdAt } = history;
  await store.create({ sessionId, chartVersion, createdAt });
  await store.append(sessionId, history.write);
}

/**
 * Writes a SQLite session file holding `history` under each of `sessionIds`, with the store of
 * `subject`'s package (the one that recorded the history).
 */
export async function writeHistoryFile(
  path: string,
  history: StoredHistory,
  sessionIds: readonly string[],
  subject: DurableSubject = OURS,
): Promise<void> {
  const { createSqliteSessionStore } = await subject.load();
  const store = createSqliteSessionStore({ path, durability: 'normal' });
  for (const sessionId of sessionIds) await storeHistory(store, sessionId, history);
  await store.close();
}
