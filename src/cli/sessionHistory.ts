/**
 * A stored session's whole history, read off its log: the log replayed from its first entry
 * through pure mode gives every message the transcript ever held, in order, with each compaction
 * where it happened (the live transcript keeps only the latest summary and what came after it;
 * the log keeps everything), what each turn's model calls used, and a note for the entries the
 * replay explains (a compaction's summary call, its outcome).
 */
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type CompactionTrigger,
  describeStateValue,
  type Message,
  type UsageTotals,
} from '../machine/index.js';
import type { StoredEntry } from '../persistence/index.js';

/**
 * One line of a session's history: a message, or a compaction that replaced the messages before
 * it (in the live transcript) with its summary.
 *
 * @example
 * const item: HistoryItem = { kind: 'message', message: { role: 'user', content: 'hi' } };
 */
export type HistoryItem =
  | { kind: 'message'; message: Message }
  | {
      kind: 'compaction';
      /** The entry whose event completed it (the summary). */
      seq: number;
      trigger: CompactionTrigger;
      /** Messages of the live transcript the summary replaced (an earlier summary among them). */
      summarised: number;
      /** Messages of the live transcript kept after the summary. */
      kept: number;
      summary: string;
    };

/**
 * What {@link replaySessionHistory} read off a log.
 *
 * @example
 * const history = replaySessionHistory(await store.entries('alice-1'), config);
 * history.items.filter((item) => item.kind === 'compaction').length; // 2
 */
export interface SessionHistory {
  items: HistoryItem[];
  /** The transcript as the replay left it: what the model sees now. */
  transcript: Message[];
  /** What each turn's model calls used, as the chart reckoned it. */
  turns: UsageTotals[];
  /** A few words to show beside an entry, by seq. */
  notes: Map<number, string>;
}

/**
 * Replays `entries` (a session's log from its first entry) through pure mode with `config`.
 *
 * @example
 * const { items, turns } = replaySessionHistory(await store.entries('alice-1'), config);
 */
export function replaySessionHistory(
  entries: readonly StoredEntry[],
  config: AgentConfig,
): SessionHistory {
  const core = new AgentCore(config);
  const items: HistoryItem[] = [];
  const turns: UsageTotals[] = [];
  const notes = new Map<number, string>();
  // How many messages of the live transcript are in `items` already.
  let shown = 0;
  for (const entry of entries) {
    if (entry.kind === 'started') {
      const summaryCall =
        entry.data.effect === 'llm' && describeStateValue(core.stateValue).endsWith('.Compacting');
      if (summaryCall) notes.set(entry.seq, "a compaction's summary");
      continue;
    }
    const actions = core.handleEvent(entry.data);
    for (const action of actions) {
      if (action.type === 'UsageReported') {
        if (action.turn.calls === 1) turns.push(action.turn);
        else turns[turns.length - 1] = action.turn;
      }
    }
    const compacted = actions.find(
      (action): action is Extract<AgentAction, { type: 'Compacted' }> =>
        action.type === 'Compacted',
    );
    const skipped = actions.find((action) => action.type === 'CompactionSkipped');
    if (skipped?.type === 'CompactionSkipped') {
      notes.set(entry.seq, `compaction skipped (${skipped.trigger}): ${skipped.reason}`);
    }
    const { messages } = core.context;
    if (compacted !== undefined) {
      const { trigger, summarised, kept, summary } = compacted;
      items.push({ kind: 'compaction', seq: entry.seq, trigger, summarised, kept, summary });
      notes.set(
        entry.seq,
        `compacted (${trigger}): ${summarised} messages summarised, ${kept} kept`,
      );
      // The kept messages are in the history already; the summary is the compaction's own.
      shown = messages.length;
      continue;
    }
    for (const message of messages.slice(shown)) items.push({ kind: 'message', message });
    shown = messages.length;
  }
  return { items, transcript: core.context.messages, turns, notes };
}
