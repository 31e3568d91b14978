/**
 * The persistence phase's measurements as figures: bytes per turn (logical, against the turn's
 * new content, with what they hold; and page-level), CPU per durable turn with its paired
 * ratios (to itself at the smallest history, LangGraph.js's to ours, and with `--baseline` ours
 * to the baseline build's), resume time, the durable turn and resume time on a history compacted
 * to its active window, and the heap of a host over many idle sessions against one over a few.
 */
import { figure, type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import type { Series } from '../perTurn/measure.js';
import { pairedRatio } from '../report/statistics.js';
import type { IdleHeapSample } from './idleHeap.js';
import type { TurnBytes } from './writtenBytes.js';

/** Bytes per turn of each subject, by history size. */
export interface WrittenBytesRuns {
  ours: Record<number, TurnBytes[]>;
  langGraph: Record<number, TurnBytes[]>;
  /** The baseline build's (`--baseline`). */
  oursBase?: Record<number, TurnBytes[]>;
}

/** The rows the targets read. */
export const PERSISTENCE_ROWS = {
  ourBytesRatio: 'ours ÷ new content',
  ourCpu: (durability: string) =>
    `ours: SessionCore + SQLite store, durability ${named(durability)}`,
  langGraphCpu: 'LangGraph.js StateGraph + SqliteSaver',
  flat: (durability: string) => `ours, ${named(durability)}: ÷ itself at n=10`,
  langGraphRatio: (durability: string) => `SqliteSaver ÷ ours, ${named(durability)}`,
  resume: (how: string) => `${how}: CPU`,
  compactedCpu: (durability: string) =>
    `ours on the history compacted to its active window, durability ${named(durability)}`,
  compactedFlat: (durability: string) => `compacted, ${named(durability)}: ÷ ours at n=10`,
  compactedResume: (how: string) => `${how}, compacted to its active window: CPU`,
  idleGrowth: 'heap growth over the few (paired)',
  baselineCpu: (durability: string) =>
    `baseline build: SessionCore + SQLite store, durability ${named(durability)}`,
  baselineRatio: (durability: string) => `ours ÷ baseline build, ${named(durability)}`,
} as const;

/**
 * Both settings of the store's `durability`: `'full'` is what a user gets by default (the
 * targets read it); `'normal'` (no sync at each commit) is shown beside it.
 */
export const DURABILITIES = ['full', 'normal'] as const;
export type Durability = (typeof DURABILITIES)[number];
export const DEFAULT_DURABILITY: Durability = 'full';

const named = (durability: string) =>
  durability === DEFAULT_DURABILITY ? `'${durability}' (default)` : `'${durability}'`;

type BytesUnit = 'bytes' | 'x' | 'count';

/** The page-level rows of a subject, shown beside its logical bytes. */
const PAGE_ROWS: ReadonlyArray<[string, BytesUnit, (turn: TurnBytes) => number]> = [
  ['WAL written (pages)', 'bytes', (turn) => turn.walBytes],
  ['file growth', 'bytes', (turn) => turn.fileGrowth],
];

function bytesFigures(runs: WrittenBytesRuns, sizes: readonly number[]): Figure[] {
  const figures: Figure[] = [];
  for (const n of sizes) {
    const ours = runs.ours[n] ?? [];
    const langGraph = runs.langGraph[n] ?? [];
    const baseline = runs.oursBase?.[n] ?? [];
    const part = (name: string) => (turn: TurnBytes) => turn.parts[name] ?? 0;
    const ratio = (turn: TurnBytes) => turn.logical / turn.newContent;
    const logical = (turn: TurnBytes) => turn.logical;
    const rows: Array<readonly [string, BytesUnit, TurnBytes[], (turn: TurnBytes) => number]> = [
      ['new content: the 4 messages the turn adds', 'bytes', ours, (turn) => turn.newContent],
      ['ours: logical bytes written', 'bytes', ours, (turn) => turn.logical],
      ['  log: events from outside the chart', 'bytes', ours, part('events')],
      ['  log: effect starts', 'bytes', ours, part('starts')],
      ['  transcript records', 'bytes', ours, part('transcriptRecords')],
      ['  checkpoint', 'bytes', ours, part('checkpoint')],
      ['  transactions', 'count', ours, part('writes')],
      [PERSISTENCE_ROWS.ourBytesRatio, 'x', ours, ratio],
      ...PAGE_ROWS.map(([row, unit, value]) => [`ours: ${row}`, unit, ours, value] as const),
      ['SqliteSaver: logical bytes written', 'bytes', langGraph, (turn) => turn.logical],
      ['SqliteSaver ÷ new content', 'x', langGraph, ratio],
      ...PAGE_ROWS.map(
        ([row, unit, value]) => [`SqliteSaver: ${row}`, unit, langGraph, value] as const,
      ),
      ['baseline build: logical bytes written', 'bytes', baseline, logical],
      ...PAGE_ROWS.map(
        ([row, unit, value]) => [`baseline build: ${row}`, unit, baseline, value] as const,
      ),
    ];
    for (const [row, unit, turns, value] of rows) {
      if (turns.length > 0) figures.push(figure('persistBytes', row, n, unit, turns.map(value)));
    }
    if (baseline.length > 0) {
      // Turn by turn: the k-th turn of each is the same turn on the same session of its file.
      const paired = pairedRatio(ours.map(logical), baseline.map(logical));
      figures.push(figure('persistBytes', 'ours ÷ baseline build: logical bytes', n, 'x', paired));
    }
  }
  return figures;
}

/** The two ways of resuming a session: their case ids and rows. */
const RESUMES = [
  ['resumeCore', 'SessionCore.open'],
  ['resumeAgent', 'createAgent + ready'],
] as const;

/**
 * What a run measured: the store's durabilities it sampled, and with `only: 'compaction'`
 * (`--persistence=compaction`) only what compaction is judged by — no LangGraph.js, bytes or
 * idle sessions, and no resume at the smallest history.
 */
export interface PersistenceMode {
  durabilities: readonly Durability[];
  only: 'compaction' | null;
}

/** Whether a run resumes the history of `n` messages: a compaction-only run not the smallest. */
export function resumedAt(
  only: PersistenceMode['only'],
  sizes: readonly number[],
  n: number,
): boolean {
  return only === null || n !== sizes[0];
}

/** Resuming a history: its CPU (with the wall time beside it), and its wall time as a row. */
function resumeFigures(
  cpuRow: string,
  wallRow: string,
  n: number,
  resume: Series | undefined,
): Figure[] {
  const cpu = timingFigure('persistResume', cpuRow, n, resume);
  // timingFigure threw if it was not measured.
  return [cpu, figure('persistResume', wallRow, n, 'ns', resume!.wall)];
}

function cpuFigures(
  series: Map<string, Series>,
  sizes: readonly number[],
  { durabilities, only }: PersistenceMode,
): Figure[] {
  const figures: Figure[] = [];
  const at = (id: string, n: number) => series.get(`${id}@${n}`);
  const smallest = sizes[0]!;
  const langGraphMeasured = only === null;
  for (const n of sizes) {
    for (const durability of durabilities) {
      figures.push(
        timingFigure(
          'persistCpu',
          PERSISTENCE_ROWS.ourCpu(durability),
          n,
          at(`ours-${durability}`, n),
        ),
      );
    }
    if (langGraphMeasured) {
      figures.push(
        timingFigure('persistCpu', PERSISTENCE_ROWS.langGraphCpu, n, at('langGraph', n)),
      );
    }
    for (const durability of durabilities) {
      const ours = at(`ours-${durability}`, n);
      if (n !== smallest) {
        figures.push(
          ratioFigure(
            'persistRatio',
            PERSISTENCE_ROWS.flat(durability),
            n,
            ours,
            at(`ours-${durability}`, smallest),
          ),
        );
      }
      if (langGraphMeasured) {
        figures.push(
          ratioFigure(
            'persistRatio',
            PERSISTENCE_ROWS.langGraphRatio(durability),
            n,
            at('langGraph', n),
            ours,
          ),
        );
      }
    }
    for (const durability of durabilities) {
      // The baseline build is measured only with `--baseline`.
      const baseline = at(`oursBase-${durability}`, n);
      if (baseline === undefined) continue;
      figures.push(
        timingFigure('persistCpu', PERSISTENCE_ROWS.baselineCpu(durability), n, baseline),
        ratioFigure(
          'persistRatio',
          PERSISTENCE_ROWS.baselineRatio(durability),
          n,
          at(`ours-${durability}`, n),
          baseline,
        ),
      );
    }
    if (!resumedAt(only, sizes, n)) continue;
    for (const [id, how] of RESUMES) {
      figures.push(...resumeFigures(PERSISTENCE_ROWS.resume(how), `${how}: wall`, n, at(id, n)));
    }
  }
  return figures;
}

/**
 * The compacted histories: the durable turn on each (and its ratio to ours at the smallest
 * history, sampled in the same process and rounds), and resuming it.
 */
function compactedFigures(
  series: Map<string, Series>,
  sizes: readonly number[],
  compactedSizes: readonly number[],
  durabilities: readonly Durability[],
): Figure[] {
  const figures: Figure[] = [];
  const smallest = sizes[0]!;
  for (const n of compactedSizes) {
    if (!sizes.includes(n)) continue;
    for (const durability of durabilities) {
      const compacted = series.get(`ours-${durability}@${n}+compacted`);
      figures.push(
        timingFigure('persistCpu', PERSISTENCE_ROWS.compactedCpu(durability), n, compacted),
        ratioFigure(
          'persistRatio',
          PERSISTENCE_ROWS.compactedFlat(durability),
          n,
          compacted,
          series.get(`ours-${durability}@${smallest}`),
        ),
      );
    }
    for (const [id, how] of RESUMES) {
      const wall = `${how}, compacted to its active window: wall`;
      const resume = series.get(`${id}@${n}+compacted`);
      figures.push(...resumeFigures(PERSISTENCE_ROWS.compactedResume(how), wall, n, resume));
    }
  }
  return figures;
}

function idleFigures(samples: readonly IdleHeapSample[]): Figure[] {
  const counts = [...new Set(samples.map((sample) => sample.sessions))].sort((a, b) => a - b);
  const of = (count: number) => samples.filter((sample) => sample.sessions === count);
  const figures: Figure[] = [];
  for (const count of counts) {
    const values = of(count);
    figures.push(
      figure(
        'persistIdle',
        'heap of the host, its sessions evicted',
        count,
        'bytes',
        values.map((sample) => sample.heapUsed),
      ),
      figure(
        'persistIdle',
        'RSS',
        count,
        'bytes',
        values.map((sample) => sample.rss),
      ),
    );
  }
  const few = of(counts[0]!);
  for (const count of counts.slice(1)) {
    // Paired by round: each round measured both files, one after the other.
    const growth = of(count).map((sample, round) => sample.heapUsed - few[round]!.heapUsed);
    figures.push(figure('persistIdle', PERSISTENCE_ROWS.idleGrowth, count, 'bytes', growth));
  }
  return figures;
}

export function persistenceFigures(
  input: {
    sizes: readonly number[];
    compactedSizes: readonly number[];
    bytes: WrittenBytesRuns;
    series: Map<string, Series>;
    idleHeap: readonly IdleHeapSample[];
  } & PersistenceMode,
): Figure[] {
  return [
    ...bytesFigures(input.bytes, input.sizes),
    ...cpuFigures(input.series, input.sizes, input),
    ...compactedFigures(input.series, input.sizes, input.compactedSizes, input.durabilities),
    ...idleFigures(input.idleHeap),
  ];
}
