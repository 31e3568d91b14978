/**
 * The persistence figures of a `--persistence=compaction` run: only what it measured — ours at
 * the store's default durability, compacted and not, and resuming where it resumed — with no
 * LangGraph.js row, and the compaction targets read from them. Synthetic series: no timing here.
 */
import { describe, expect, it } from 'vitest';
import type { Series } from '../../bench/perTurn/measure.js';
import {
  DEFAULT_DURABILITY,
  PERSISTENCE_ROWS,
  persistenceFigures,
} from '../../bench/persistence/persistenceFigures.js';
import { evaluateTargets } from '../../bench/report/targets.js';

describe('the persistence figures of a compaction-only run', () => {
  const series = (cpu: number[]): Series => ({ cpu, wall: cpu.map((ns) => ns * 2) });
  const sample = new Map<string, Series>([
    ['ours-full@10', series([100, 200, 100])],
    ['ours-full@10000', series([110, 220, 130])],
    ['ours-full@10000+compacted', series([105, 180, 100])],
    ['resumeCore@10000', series([40e6])],
    ['resumeAgent@10000', series([45e6])],
    ['resumeCore@10000+compacted', series([3e6])],
    ['resumeAgent@10000+compacted', series([4e6])],
  ]);
  const figures = persistenceFigures({
    sizes: [10, 10_000],
    compactedSizes: [10_000],
    bytes: { ours: {}, langGraph: {} },
    series: sample,
    idleHeap: [],
    durabilities: [DEFAULT_DURABILITY],
    only: 'compaction',
  });
  const rows = (section: string) =>
    figures.filter((entry) => entry.section === section).map((entry) => `${entry.row}@${entry.n}`);

  it('hold only the rows it measured', () => {
    expect(rows('persistCpu')).toEqual([
      `${PERSISTENCE_ROWS.ourCpu('full')}@10`,
      `${PERSISTENCE_ROWS.ourCpu('full')}@10000`,
      `${PERSISTENCE_ROWS.compactedCpu('full')}@10000`,
    ]);
    expect(rows('persistRatio')).toEqual([
      `${PERSISTENCE_ROWS.flat('full')}@10000`,
      `${PERSISTENCE_ROWS.compactedFlat('full')}@10000`,
    ]);
    expect(rows('persistResume')).toEqual([
      `${PERSISTENCE_ROWS.resume('SessionCore.open')}@10000`,
      'SessionCore.open: wall@10000',
      `${PERSISTENCE_ROWS.resume('createAgent + ready')}@10000`,
      'createAgent + ready: wall@10000',
      `${PERSISTENCE_ROWS.compactedResume('SessionCore.open')}@10000`,
      'SessionCore.open, compacted to its active window: wall@10000',
      `${PERSISTENCE_ROWS.compactedResume('createAgent + ready')}@10000`,
      'createAgent + ready, compacted to its active window: wall@10000',
    ]);
    expect(rows('persistBytes')).toEqual([]);
  });

  it('pair the compacted turn with ours at the smallest history, sample by sample', () => {
    const flat = figures.find((entry) => entry.row === PERSISTENCE_ROWS.compactedFlat('full'));
    expect(flat?.samples).toEqual([1.05, 0.9, 1]);
  });

  it('check the compaction targets, and leave the ones it did not measure out', () => {
    const ids = evaluateTargets(figures).map((result) => result.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'persistence-flat',
        'persistence-resume',
        'persistence-compacted-resume',
        'persistence-compacted-flat',
      ]),
    );
    expect(ids).not.toContain('persistence-vs-langGraph');
    expect(ids).not.toContain('persistence-idle');
  });

  it('refuse a run that left out a row its mode measures', () => {
    const missing = new Map(sample);
    missing.delete('resumeAgent@10000');
    expect(() =>
      persistenceFigures({
        sizes: [10, 10_000],
        compactedSizes: [10_000],
        bytes: { ours: {}, langGraph: {} },
        series: missing,
        idleHeap: [],
        durabilities: [DEFAULT_DURABILITY],
        only: 'compaction',
      }),
    ).toThrow(/no samples/);
  });
});
