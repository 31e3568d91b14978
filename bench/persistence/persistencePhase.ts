/**
 * The persistence phase: what a durable session costs, next to LangGraph.js with its SQLite
 * checkpointer, for one agent turn (user input → a response with a tool call → the tool's result
 * → the final response; about 8 KB of new messages) on top of 10, 1,000 and 10,000 prior
 * messages:
 *
 * - the bytes each writes per turn (writtenBytes.ts);
 * - CPU per durable turn: ours (`SessionCore` on the SQLite store, durability `full`, the
 *   default, and `normal`) and LangGraph.js's `StateGraph` with `SqliteSaver`, each in a process of its own,
 *   sampled in interleaved rounds (bench/perTurn/measure.ts);
 * - with `--baseline`, the bytes and CPU of the same durable turn on the baseline commit's build
 *   (durablePackage.ts), from template files of its own, in the same rounds;
 * - resuming a session from its file, in pure mode and with `createAgent`;
 * - the same durable turn and resume on a session of 10,000 messages compacted to its active
 *   window (its log keeps all of them);
 * - the heap of a host over a file of many idle sessions, against one over a few.
 *
 * With `--persistence=compaction` it measures only what compaction is judged by: the durable
 * turn at 10 messages, and at 10,000 compacted and not, and resuming 10,000 messages compacted
 * and not (the store's default durability, no LangGraph.js, bytes or idle sessions).
 *
 * It runs in its own process, started by `run.ts` with the path to write its result to; the
 * session files live in a temporary folder it removes at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TurnScript } from '../perTurn/conversation.js';
import {
  measureInterleaved,
  type Prepare,
  servedFamily,
  subjectFamily,
} from '../perTurn/measure.js';
import { finishPhase, phaseSettings, progress } from '../perTurn/phaseIo.js';
import { durableSubjects, OURS } from './durablePackage.js';
import { COMPACTED_HISTORY_SIZES, durableTurn, PERSISTENCE_HISTORY_SIZES } from './durableTurn.js';
import { idleSessionId, writeIdleSessions } from './idleSessions.js';
import { measureIdleHeap } from './idleHeap.js';
import { openLangGraphFile, seedThread } from './langGraphSqlite.js';
import {
  type History,
  historyTag,
  langGraphTurns,
  ourTurns,
  resumeCreateAgent,
  resumeSessionCore,
  sessionIds,
} from './persistenceCases.js';
import {
  DEFAULT_DURABILITY,
  DURABILITIES,
  type Durability,
  persistenceFigures,
  resumedAt,
  type WrittenBytesRuns,
} from './persistenceFigures.js';
import {
  compactedLength,
  noteCompactedLength,
  removeDatabase,
  sessionFolder,
  type TemplateKind,
  templatePath,
  useSessionFolder,
} from './sessionFiles.js';
import { recordCompactedHistory, recordHistory, writeHistoryFile } from './storedHistory.js';
import { langGraphTurnBytes, ourTurnBytes } from './writtenBytes.js';

const settings = phaseSettings({ rounds: 9 });
const quick = settings.quick;
const only = process.argv.includes('--persistence=compaction') ? 'compaction' : null;
const compactionOnly = only === 'compaction';
const sizes: readonly number[] = compactionOnly
  ? [PERSISTENCE_HISTORY_SIZES[0], ...COMPACTED_HISTORY_SIZES]
  : PERSISTENCE_HISTORY_SIZES;
const compactedSizes: readonly number[] = COMPACTED_HISTORY_SIZES;
const durabilities: readonly Durability[] = compactionOnly ? [DEFAULT_DURABILITY] : DURABILITIES;

/**
 * Sessions per sample: enough turns for each timed block to take milliseconds. LangGraph.js's
 * turn grows with the history, so fewer of its threads make as long a block.
 */
const ourSessions = quick ? 4 : 8;
const langGraphThreads = (n: number) => (n >= 10_000 ? 1 : n >= 1_000 ? 2 : quick ? 4 : 8);
/** Turns whose bytes are measured, per subject and size (the figures are their median). */
const BYTES_TURNS = 3;
/** Stored idle sessions: the many, and the few they are compared with. */
const IDLE_MANY = quick ? 10_000 : 100_000;
const IDLE_FEW = 100;
const IDLE_ROUNDS = 3;
/** Sessions each idle host loads and lets drop out of memory before its heap is read. */
const IDLE_TOUCHED = IDLE_FEW;

/** The measured turn: numbered past every prior turn, so its tool call's id is new. */
const script: TurnScript = durableTurn(1_000_000);
/**
 * Our turns per session in a CPU sample: each session goes on to a second turn, so a sample is
 * long enough (16 turns) for a shared machine's noise to average out in it.
 */
const ourScripts: TurnScript[] = [script, durableTurn(1_000_001)];

const idlePath = (count: number) => join(sessionFolder(), `idle-${count}.db`);

/** Ours, and with `--baseline` the baseline build's: the same durable turn, each package's own. */
const subjects = compactionOnly ? [OURS] : durableSubjects();
const baseline = subjects.find((subject) => subject.kind === 'oursBase');

/** Writes every template file; returns the size of each history's transcript, in JSON bytes. */
async function writeTemplates(): Promise<Record<number, number>> {
  const historyBytes: Record<number, number> = {};
  for (const n of sizes) {
    const history = await recordHistory(n);
    historyBytes[n] = Buffer.byteLength(JSON.stringify(history.messages));
    await writeHistoryFile(templatePath('ours', n), history, sessionIds(ourSessions));
    await writeHistoryFile(templatePath('resume', n), history, sessionIds(1));
    if (compactedSizes.includes(n)) {
      const compacted = await recordCompactedHistory(n);
      await writeHistoryFile(templatePath('oursCompacted', n), compacted, sessionIds(ourSessions));
      await writeHistoryFile(templatePath('resumeCompacted', n), compacted, sessionIds(1));
      noteCompactedLength(n, compacted.messages.length);
    }
    if (compactionOnly) {
      progress('persistence', `templates at n=${n.toLocaleString('en')} written`);
      continue;
    }
    if (baseline !== undefined) {
      // Recorded and stored by the baseline itself: its store may lay sessions out otherwise.
      const ids = sessionIds(ourSessions);
      const own = await recordHistory(n, baseline);
      await writeHistoryFile(templatePath(baseline.kind, n), own, ids, baseline);
    }
    const langGraph = openLangGraphFile(templatePath('langGraph', n), script);
    for (const id of sessionIds(langGraphThreads(n))) {
      await seedThread(langGraph, id, history.messages);
    }
    langGraph.close();
    progress('persistence', `templates at n=${n.toLocaleString('en')} written`);
  }
  if (compactionOnly) return historyBytes;
  const idle = await recordHistory(2);
  for (const count of [IDLE_FEW, IDLE_MANY]) await writeIdleSessions(idlePath(count), idle, count);
  progress('persistence', `${IDLE_MANY.toLocaleString('en')} idle sessions written`);
  return historyBytes;
}

async function measureBytes(): Promise<WrittenBytesRuns> {
  const runs: WrittenBytesRuns = { ours: {}, langGraph: {} };
  for (const n of sizes) {
    runs.ours[n] = await ourTurnBytes(n, BYTES_TURNS, script);
    if (baseline !== undefined) {
      (runs.oursBase ??= {})[n] = await ourTurnBytes(n, BYTES_TURNS, script, baseline);
    }
    runs.langGraph[n] = await langGraphTurnBytes(
      n,
      Math.min(BYTES_TURNS, langGraphThreads(n)),
      script,
    );
  }
  progress('persistence', 'bytes per turn measured');
  return runs;
}

const cases: Record<string, Prepare> = {};
for (const n of sizes) {
  // Each history of n messages, and where measured, the same compacted to its active window.
  const histories: History[] = [{ n, compacted: false }];
  if (compactedSizes.includes(n)) histories.push({ n, compacted: true });
  for (const history of histories) {
    const tag = historyTag(history);
    for (const subject of subjects) {
      // The baseline build may not compact: it is measured on the histories it recorded.
      if (history.compacted && subject.kind !== 'ours') continue;
      for (const durability of durabilities) {
        const id = `${subject.kind}-${durability}@${tag}`;
        cases[id] = ourTurns(subject, durability, history, ourSessions, ourScripts);
      }
    }
    if (!resumedAt(only, sizes, n)) continue;
    cases[`resumeCore@${tag}`] = resumeSessionCore(history);
    cases[`resumeAgent@${tag}`] = resumeCreateAgent(history);
  }
  if (!compactionOnly) cases[`langGraph@${n}`] = langGraphTurns(n, langGraphThreads(n), script);
}
/** Each subject in a process of its own; the two ways of resuming share one. */
const family = (id: string) => (id.startsWith('resume') ? 'resume' : subjectFamily(id));

const folder =
  servedFamily() === undefined
    ? mkdtempSync(join(tmpdir(), 'agent-statechart-bench-persistence-'))
    : undefined;
try {
  let historyBytes: Record<number, number> = {};
  let bytes: WrittenBytesRuns = { ours: {}, langGraph: {} };
  if (folder !== undefined) {
    useSessionFolder(folder);
    historyBytes = await writeTemplates();
    if (!compactionOnly) bytes = await measureBytes();
  }
  progress('persistence', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
  // In a child process this serves its family's cases and never returns.
  const series = await measureInterleaved(cases, {
    ...settings,
    family,
    onRound: (round) => progress('persistence', `round ${round}/${settings.rounds}`),
  });
  for (const n of sizes) {
    const kinds: TemplateKind[] = [
      'ours',
      'oursBase',
      'langGraph',
      'resume',
      'oursCompacted',
      'resumeCompacted',
    ];
    for (const kind of kinds) removeDatabase(templatePath(kind, n));
  }
  const idleHeap = compactionOnly
    ? []
    : await measureIdleHeap(
        // Compiled (as `npm run bench` runs it) or under tsx.
        fileURLToPath(new URL(import.meta.url.replace(/persistencePhase\.(\w+)$/, 'idleHost.$1'))),
        [
          { sessions: IDLE_FEW, path: idlePath(IDLE_FEW) },
          { sessions: IDLE_MANY, path: idlePath(IDLE_MANY) },
        ],
        IDLE_ROUNDS,
        IDLE_TOUCHED,
      );
  if (!compactionOnly) progress('persistence', 'idle sessions measured');
  finishPhase({
    phase: 'persistence',
    figures: persistenceFigures({
      sizes,
      compactedSizes,
      bytes,
      series,
      idleHeap,
      durabilities,
      only,
    }),
    extra: {
      only,
      compactedTranscript: Object.fromEntries(
        compactedSizes.filter((n) => sizes.includes(n)).map((n) => [n, compactedLength(n)]),
      ),
      turn: { newMessages: 4, script: 'bench/persistence/durableTurn.ts' },
      historyBytes,
      ourTurnsPerSession: ourScripts.length,
      sessionsPerSample: {
        ours: ourSessions,
        langGraph: Object.fromEntries(sizes.map((n) => [n, langGraphThreads(n)])),
      },
      bytesTurns: BYTES_TURNS,
      bytesParts: bytes,
      idleSessions: {
        few: IDLE_FEW,
        many: IDLE_MANY,
        touched: IDLE_TOUCHED,
        firstId: idleSessionId(0),
      },
      idleHeap,
    },
  });
} finally {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
}
