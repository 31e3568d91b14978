/**
 * The persistence phase's measurements as figures: bytes per turn (logical, against the turn's
 * new content, with what they hold; and page-level), CPU per durable turn with its paired
 * ratios (to itself at the smallest history, and LangGraph.js's to ours), resume time, and the
 * heap of a host over many idle sessions against one over a few.
 */
import { figure, type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import type { Series } from '../perTurn/measure.js';
import type { IdleHeapSample } from './idleHeap.js';
import type { TurnBytes } from './writtenBytes.js';

/** Bytes per turn of each subject, by history size. */
export interface WrittenBytesRuns {
  ours: Record<number, TurnBytes[]>;
  langGraph: Record<number, TurnBytes[]>;
}

/** The rows the targets read. */
export const PERSISTENCE_ROWS = {
  ourBytesRatio: 'ours ÷ new content',
  ourCpu: (durability: string) => `ours: SessionCore + SQLite store, durability '${durability}'`,
  langGraphCpu: 'LangGraph.js StateGraph + SqliteSaver',
  flat: (durability: string) => `ours, '${durability}': ÷ itself at n=10`,
  langGraphRatio: (durability: string) => `SqliteSaver ÷ ours, '${durability}'`,
  resume: (how: string) => `${how}: CPU`,
  idleGrowth: 'heap growth over the few (paired)',
} as const;

const DURABILITIES = ['normal', 'full'] as const;

function bytesFigures(runs: WrittenBytesRuns, sizes: readonly number[]): Figure[] {
  const figures: Figure[] = [];
  const add = (row: string, n: number, unit: 'bytes' | 'x' | 'count', values: number[]) => {
    if (values.length > 0) figures.push(figure('persistBytes', row, n, unit, values));
  };
  for (const n of sizes) {
    const ours = runs.ours[n] ?? [];
    const langGraph = runs.langGraph[n] ?? [];
    add(
      'new content: the 4 messages the turn adds',
      n,
      'bytes',
      ours.map((turn) => turn.newContent),
    );
    add(
      'ours: logical bytes written',
      n,
      'bytes',
      ours.map((turn) => turn.logical),
    );
    const part = (name: string) => ours.map((turn) => turn.parts[name] ?? 0);
    add('  log: events from outside the chart', n, 'bytes', part('events'));
    add('  log: effect starts', n, 'bytes', part('starts'));
    add('  transcript records', n, 'bytes', part('transcriptRecords'));
    add('  checkpoint', n, 'bytes', part('checkpoint'));
    add('  transactions', n, 'count', part('writes'));
    add(
      PERSISTENCE_ROWS.ourBytesRatio,
      n,
      'x',
      ours.map((turn) => turn.logical / turn.newContent),
    );
    add(
      'ours: WAL written (pages)',
      n,
      'bytes',
      ours.map((turn) => turn.walBytes),
    );
    add(
      'ours: file growth',
      n,
      'bytes',
      ours.map((turn) => turn.fileGrowth),
    );
    add(
      'SqliteSaver: logical bytes written',
      n,
      'bytes',
      langGraph.map((turn) => turn.logical),
    );
    add(
      'SqliteSaver ÷ new content',
      n,
      'x',
      langGraph.map((turn) => turn.logical / turn.newContent),
    );
    add(
      'SqliteSaver: WAL written (pages)',
      n,
      'bytes',
      langGraph.map((turn) => turn.walBytes),
    );
    add(
      'SqliteSaver: file growth',
      n,
      'bytes',
      langGraph.map((turn) => turn.fileGrowth),
    );
  }
  return figures;
}

function cpuFigures(series: Map<string, Series>, sizes: readonly number[]): Figure[] {
  const figures: Figure[] = [];
  const at = (id: string, n: number) => series.get(`${id}@${n}`);
  const smallest = sizes[0]!;
  for (const n of sizes) {
    for (const durability of DURABILITIES) {
      figures.push(
        timingFigure(
          'persistCpu',
          PERSISTENCE_ROWS.ourCpu(durability),
          n,
          at(`ours-${durability}`, n),
        ),
      );
    }
    figures.push(timingFigure('persistCpu', PERSISTENCE_ROWS.langGraphCpu, n, at('langGraph', n)));
    for (const durability of DURABILITIES) {
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
    for (const [id, how] of [
      ['resumeCore', 'SessionCore.open'],
      ['resumeAgent', 'createAgent + ready'],
    ] as const) {
      const resume = at(id, n);
      figures.push(timingFigure('persistResume', PERSISTENCE_ROWS.resume(how), n, resume));
      if (resume !== undefined) {
        figures.push(figure('persistResume', `${how}: wall`, n, 'ns', resume.wall));
      }
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
        'heap of a host over the file (nothing loaded)',
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

export function persistenceFigures(input: {
  sizes: readonly number[];
  bytes: WrittenBytesRuns;
  series: Map<string, Series>;
  idleHeap: readonly IdleHeapSample[];
}): Figure[] {
  return [
    ...bytesFigures(input.bytes, input.sizes),
    ...cpuFigures(input.series, input.sizes),
    ...idleFigures(input.idleHeap),
  ];
}
