/** The printed persistence tables, and the method as results.json records it. */
import type { Figure } from '../report/figures.js';
import { renderSection } from '../report/table.js';

export const PERSISTENCE_METHOD =
  "One durable turn (UserInput → LlmCompleted with one read_file call → ToolCompleted → LlmCompleted; about 8 KB of new messages, no streamed deltas: those are never stored) on sessions of n prior messages (about 790 bytes of JSON each), model and tool instant. Ours: SessionCore on createSqliteSessionStore with its default durability 'full' (synchronous=FULL), and 'normal' beside it, every event and effect start recorded before the next step, a checkpoint at rest; LangGraph.js: the same loop as a StateGraph compiled with SqliteSaver (synchronous=NORMAL, better-sqlite3's default in WAL mode), one invoke per turn. Every sample starts from a fresh copy of a template file holding the sessions. Bytes (3 turns each): logical = the JSON text the store is handed (counted by a SessionStore wrapping the SQLite store; what the targets read) or SqliteSaver's stored checkpoint, metadata and write blobs; WAL = the write-ahead log's size after the turn, emptied before it; file growth = after folding the WAL back in; new content = the JSON text of the 4 messages the turn adds. CPU: process.cpuUsage of the timed turns ÷ turns (ours: 8 sessions × 2 turns a sample; LangGraph.js: 8, 2 and 1 threads × 1 turn), each subject in its own process, 9 interleaved rounds after a 2 s CPU warm-up, median and min–max, ratios paired per round. Resume: opening the store over a copy of the file plus SessionCore.open, or plus createAgent and await agent.ready, CPU and wall. Compacted: the 10,000-message history compacted at rest (a Compact event, its summary call answered with about 2 KB of text), so its log keeps all 10,000 messages and its transcript the summary and the latest messages the default keepRecentTokens keeps; the same durable turn (its ratio paired with ours at n=10 in the same process and rounds) and the same resume on it. Idle: fresh processes hold createAgentHost (idleMs 20) over a file of 100 or 100,000 stored sessions, load 100 of them through the host, wait until all were evicted, list a page of 20, and read the heap after two full GCs; the two files alternate over 3 rounds.";

const SECTIONS = [
  {
    id: 'persistBytes',
    title:
      'Bytes written per turn (logical: JSON handed to the store; WAL and file growth: page level, for information)',
  },
  { id: 'persistCpu', title: 'CPU time per durable turn' },
  { id: 'persistRatio', title: 'Durable-turn ratios (paired per round)' },
  {
    id: 'persistResume',
    title:
      'Resuming a session from its file, to ready (store opened, session loaded, chart restored)',
  },
  {
    id: 'persistIdle',
    title:
      'Stored idle sessions: a host over the file after 100 sessions were loaded and evicted (n = sessions stored)',
  },
];

export function renderPersistenceTables(figures: Figure[]): string[] {
  const lines = [
    'PERSISTENCE: one durable turn (input → a response with a tool call → the tool result → the final response, about 8 KB',
    'of new messages) on n prior messages of about 790 bytes each, SQLite, model and tool instant; ours against',
    "LangGraph.js's StateGraph + SqliteSaver doing the same loop. Median (min–max).",
    '',
  ];
  for (const section of SECTIONS) {
    const rendered = renderSection(section, figures);
    if (rendered.length > 0) lines.push(...rendered, '');
  }
  return lines;
}
