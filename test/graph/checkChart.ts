/**
 * The whole generated suite as one function: walk the chart in every variant, replay every path
 * (in lockstep with pure and actor mode unless told otherwise) while recording coverage, and
 * report what failed. The tests assert on its result for the real chart; the meta-test calls it
 * on broken copies of the chart to show the same checks fail.
 */
import { type AgentMachine, agentMachine } from '../../src/index.js';
import { type ChartWalk, type GeneratedPath, walkChart } from './chartWalk.js';
import { CoverageRecorder, type CoverageReport, coverageOf } from './coverage.js';
import { replayPath, type ReplayOptions } from './replayPath.js';
import { type GraphVariant, graphVariants } from './variants.js';

/** A path that broke a rule, with what broke. */
export interface PathFailure {
  path: GeneratedPath;
  problems: string[];
}

/** What checking a chart found. */
export interface ChartCheck {
  walks: ChartWalk[];
  paths: GeneratedPath[];
  coverage: CoverageReport;
  /** What the replays took, to measure against another definition (the meta-test does). */
  recorder: CoverageRecorder;
  failures: PathFailure[];
  /** Abstract states, by variant, from which a turn cannot finish with ordinary events. */
  stuck: string[];
}

/**
 * Walks and replays `machine`.
 *
 * @example
 * const check = checkChart();
 * check.coverage.transitions.missing; // []
 */
export function checkChart(
  machine: AgentMachine = agentMachine,
  options: Pick<ReplayOptions, 'modes'> & { variants?: readonly GraphVariant[] } = {},
): ChartCheck {
  const walks = (options.variants ?? graphVariants).map((variant) => walkChart(variant, machine));
  const paths = walks.flatMap((walk) => walk.paths);
  const recorder = new CoverageRecorder();
  const failures: PathFailure[] = [];
  for (const path of paths) {
    const { problems } = replayPath(path, { machine, recorder, modes: options.modes });
    if (problems.length > 0) failures.push({ path, problems });
  }
  return {
    walks,
    paths,
    coverage: coverageOf(machine, recorder),
    recorder,
    failures,
    stuck: walks.flatMap((walk) => walk.stuck.map((key) => `${walk.variant.name}: ${key}`)),
  };
}

/** Failures as readable lines: the first few in full, then how many more. */
export function describeFailures(failures: readonly PathFailure[], shown = 5): string[] {
  const lines = failures
    .slice(0, shown)
    .map(({ path, problems }) => `${path.description}\n    ${problems.join('\n    ')}`);
  if (failures.length > shown) lines.push(`… and ${failures.length - shown} more failing paths`);
  return lines;
}
