/**
 * The density runs as figures: per subject and N, the distribution over rounds of CPU time per
 * agent-turn, wall time, peak RSS and event-loop delay p99, and, paired per round, each subject's
 * CPU and loop delay as a ratio to the floor's (and the CPU of createAgent to its baseline
 * build's, and LangGraph.js's to createAgent's).
 */
import { figure, type Figure, type Unit } from '../report/figures.js';
import { pairedRatio, type Stats } from '../report/statistics.js';
import type { DensityRun } from './densityRounds.js';
import { BASELINE_PAIR, DENSITY_SUBJECTS, type DensitySubjectId } from './densitySubjects.js';

/** The sections of the density table, in column order. */
export const DENSITY_COLUMNS = [
  { section: 'density:cpu', heading: 'CPU per agent-turn' },
  { section: 'density:cpuRatio', heading: '÷ floor (paired)' },
  { section: 'density:wall', heading: 'wall time' },
  { section: 'density:rss', heading: 'peak RSS' },
  { section: 'density:loop', heading: 'loop delay p99' },
  { section: 'density:loopRatio', heading: '÷ floor (paired)' },
] as const;

/**
 * The sections of one-line ratios printed under each N's table, each between two subjects other
 * than the floor, paired per round.
 */
export const DENSITY_PAIRED_SECTIONS = ['density:baselineRatio', 'density:langGraphRatio'] as const;

/** The row of createAgent's CPU per agent-turn ÷ its baseline build's (`--baseline`). */
export const BASELINE_RATIO_ROW = 'createAgent ÷ its baseline build, CPU per agent-turn';

/** The row of createAgent's CPU over the SDK's streaming ÷ its baseline build's. */
export const SDK_BASELINE_RATIO_ROW =
  "createAgent over the SDK's streaming ÷ the baseline build, CPU per agent-turn";

const FLOOR: DensitySubjectId = 'sdk';

/** Values of `pick` for one subject at one N, in round order. */
function series(
  runs: readonly DensityRun[],
  subject: DensitySubjectId,
  agents: number,
  pick: (run: DensityRun) => number,
): number[] {
  return runs
    .filter((run) => run.subject === subject && run.agents === agents)
    .sort((a, b) => a.round - b.round)
    .map(pick);
}

const cpuPerTurnNs = (run: DensityRun) => (run.metrics.cpuMs * 1e6) / run.agents;
const loopP99Ns = (run: DensityRun) => run.metrics.loopDelayP99Ms * 1e6;

export function densityFigures(runs: readonly DensityRun[]): Figure[] {
  const figures: Figure[] = [];
  const agentCounts = [...new Set(runs.map((run) => run.agents))].sort((a, b) => a - b);
  const subjects = (Object.keys(DENSITY_SUBJECTS) as DensitySubjectId[]).filter((id) =>
    runs.some((run) => run.subject === id),
  );
  for (const agents of agentCounts) {
    const floorCpu = series(runs, FLOOR, agents, cpuPerTurnNs);
    const floorLoop = series(runs, FLOOR, agents, loopP99Ns);
    for (const subject of subjects) {
      const row = DENSITY_SUBJECTS[subject].label;
      const of = (pick: (run: DensityRun) => number) => series(runs, subject, agents, pick);
      const add = (section: string, unit: Unit, values: number[] | Stats) => {
        if ((Array.isArray(values) ? values : values.samples).length === 0) return;
        figures.push(figure(section, row, agents, unit, values));
      };
      const cpu = of(cpuPerTurnNs);
      const loop = of(loopP99Ns);
      add('density:cpu', 'ns', cpu);
      add('density:cpuRatio', 'x', pairedRatio(cpu, floorCpu));
      add(
        'density:wall',
        'ns',
        of((run) => run.metrics.wallMs * 1e6),
      );
      add(
        'density:rss',
        'bytes',
        of((run) => run.metrics.peakRssBytes),
      );
      add('density:loop', 'ns', loop);
      add('density:loopRatio', 'x', pairedRatio(loop, floorLoop));
    }
    const agentCpu = series(runs, BASELINE_PAIR.current, agents, cpuPerTurnNs);
    const baseline = pairedRatio(
      agentCpu,
      series(runs, BASELINE_PAIR.baseline, agents, cpuPerTurnNs),
    );
    if (baseline.samples.length > 0) {
      figures.push(figure('density:baselineRatio', BASELINE_RATIO_ROW, agents, 'x', baseline));
    }
    // The package over the SDK's streaming against the baseline build: what changed beside the
    // transport (the baseline predates the lean transport, or chooses its own).
    const sdkBaseline = pairedRatio(
      series(runs, 'agentSdk', agents, cpuPerTurnNs),
      series(runs, BASELINE_PAIR.baseline, agents, cpuPerTurnNs),
    );
    if (sdkBaseline.samples.length > 0) {
      figures.push(
        figure('density:baselineRatio', SDK_BASELINE_RATIO_ROW, agents, 'x', sdkBaseline),
      );
    }
    for (const id of ['lg', 'lgSaver'] as const) {
      const ratio = pairedRatio(series(runs, id, agents, cpuPerTurnNs), agentCpu);
      if (ratio.samples.length > 0) {
        figures.push(
          figure(
            'density:langGraphRatio',
            `${DENSITY_SUBJECTS[id].label} ÷ createAgent`,
            agents,
            'x',
            ratio,
          ),
        );
      }
    }
  }
  return figures;
}
