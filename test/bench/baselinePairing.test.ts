/**
 * `--baseline` in the bench's figures: which density subjects a run measures, and how the
 * baseline build's figures are paired with the current ones — per round (density) or per
 * interleaved sample (persistence), never as a ratio of two medians — while the targets read
 * only the current build. Synthetic runs: no timing here.
 */
import { describe, expect, it } from 'vitest';
import { BASELINE_RATIO_ROW, densityFigures } from '../../bench/density/densityFigures.js';
import type { DensityRun } from '../../bench/density/densityRounds.js';
import {
  DENSITY_SUBJECTS,
  type DensitySubjectId,
  planDensitySubjects,
} from '../../bench/density/densitySubjects.js';
import type { Series } from '../../bench/perTurn/measure.js';
import {
  DURABILITIES,
  PERSISTENCE_ROWS,
  persistenceFigures,
} from '../../bench/persistence/persistenceFigures.js';
import { evaluateTargets } from '../../bench/report/targets.js';

function run(round: number, subject: DensitySubjectId, cpuMsPerTurn: number): DensityRun {
  const agents = 10;
  return {
    round,
    agents,
    subject,
    eventDelayMs: 1,
    loadAverage: 0,
    metrics: {
      cpuMs: cpuMsPerTurn * agents,
      wallMs: 1_000,
      peakRssBytes: 1e8,
      startRssBytes: 9e7,
      loopDelayP99Ms: cpuMsPerTurn,
      loopDelayMaxMs: cpuMsPerTurn,
    },
  };
}

describe('the density subjects of a run', () => {
  it('leave the baseline subject out unless there is a baseline, and put the floor first', () => {
    expect(planDensitySubjects(undefined, false)).toEqual([
      'sdk',
      'agent',
      'agentSdk',
      'naive',
      'lg',
      'lgSaver',
    ]);
    expect(planDensitySubjects(['lg', 'agent'], false)).toEqual(['sdk', 'lg', 'agent']);
  });

  it('with a baseline, run agentBase right after agent, and agent even when not asked for', () => {
    expect(planDensitySubjects(undefined, true)).toEqual([
      'sdk',
      'agent',
      'agentBase',
      'agentSdk',
      'naive',
      'lg',
      'lgSaver',
    ]);
    expect(planDensitySubjects(['lg'], true)).toEqual(['sdk', 'agent', 'agentBase', 'lg']);
    expect(planDensitySubjects(['agentBase', 'sdk', 'agent'], true)).toEqual([
      'sdk',
      'agent',
      'agentBase',
    ]);
  });

  it('refuse the baseline subject without a baseline, and a list of no known subject', () => {
    expect(() => planDensitySubjects(['agentBase'], false)).toThrow(/--baseline=<git ref>/);
    expect(() => planDensitySubjects(['agnet'], false)).toThrow(/known ids/);
  });
});

describe('the density figures with a baseline', () => {
  // Round 1 ran under twice the load of round 0: paired per round, the ratios do not move.
  const runs = [
    run(0, 'sdk', 10),
    run(0, 'agent', 12),
    run(0, 'agentBase', 15),
    run(1, 'sdk', 20),
    run(1, 'agent', 24),
    run(1, 'agentBase', 30),
    run(2, 'agentBase', 10),
    run(2, 'sdk', 10),
    run(2, 'agent', 11),
  ];
  const figures = densityFigures(runs);
  const find = (section: string, row: string) =>
    figures.find((entry) => entry.section === section && entry.row === row);

  it('pair createAgent with its baseline build round by round', () => {
    const ratio = find('density:baselineRatio', BASELINE_RATIO_ROW);
    expect(ratio?.samples).toEqual([12 / 15, 24 / 30, 11 / 10]);
    expect(ratio?.median).toBeCloseTo(0.8);
  });

  it('give the baseline build its own row, paired with the floor like every subject', () => {
    const toFloor = find('density:cpuRatio', DENSITY_SUBJECTS.agentBase.label);
    expect(toFloor?.samples).toEqual([1.5, 1.5, 1]);
  });

  it('hold only the current createAgent to the targets', () => {
    const vsFloor = evaluateTargets(figures).find((result) => result.id === 'createAgent-vs-floor');
    expect(vsFloor?.checks.map((check) => check.label)).toEqual([DENSITY_SUBJECTS.agent.label]);
  });
});

describe('the persistence figures with a baseline', () => {
  const series = (cpu: number[]): Series => ({ cpu, wall: cpu });
  const sample = new Map<string, Series>();
  for (const durability of ['full', 'normal']) {
    sample.set(`ours-${durability}@10`, series([4, 8, 5]));
    sample.set(`oursBase-${durability}@10`, series([5, 10, 4]));
  }
  for (const id of ['langGraph', 'resumeCore', 'resumeAgent']) sample.set(`${id}@10`, series([1]));
  const turn = (logical: number) => ({
    newContent: 100,
    logical,
    walBytes: 4096,
    fileGrowth: 0,
    parts: {},
  });
  const figures = persistenceFigures({
    sizes: [10],
    compactedSizes: [],
    bytes: {
      ours: { 10: [turn(110), turn(120)] },
      langGraph: {},
      oursBase: { 10: [turn(100), turn(150)] },
    },
    series: sample,
    idleHeap: [],
    durabilities: DURABILITIES,
    only: null,
  });
  const find = (section: string, row: string) =>
    figures.find((entry) => entry.section === section && entry.row === row);

  it("pair our durable turn's CPU with the baseline build's, sample by sample", () => {
    const ratio = find('persistRatio', PERSISTENCE_ROWS.baselineRatio('full'));
    expect(ratio?.samples).toEqual([0.8, 0.8, 1.25]);
    expect(find('persistCpu', PERSISTENCE_ROWS.baselineCpu('normal'))?.median).toBe(5);
  });

  it('pair the logical bytes turn by turn', () => {
    const ratio = find('persistBytes', 'ours ÷ baseline build: logical bytes');
    expect(ratio?.samples).toEqual([1.1, 0.8]);
  });
});
