/**
 * The targets, checked against the figures of one run. A check uses the median; when the
 * min–max range of the same figure crosses the threshold the check says so, because on a noisy
 * machine a median just inside the line is not a comfortable pass.
 */
import type { Figure } from './figures.js';
import { formatFigure } from './format.js';

export interface Check {
  label: string;
  n: number;
  median: number;
  min: number;
  max: number;
  met: boolean;
  /** The min–max range crosses the threshold. */
  rangeCrosses: boolean;
}

export interface TargetResult {
  id: string;
  target: string;
  met: boolean;
  checks: Check[];
}

type Comparison = 'atMost' | 'atLeast';

function check(
  figure: Figure,
  threshold: number,
  comparison: Comparison,
  label = figure.row,
): Check {
  const passes = (value: number) =>
    comparison === 'atMost' ? value <= threshold : value >= threshold;
  return {
    label,
    n: figure.n,
    median: figure.median,
    min: figure.min,
    max: figure.max,
    met: passes(figure.median),
    rangeCrosses: passes(figure.min) !== passes(figure.max),
  };
}

function pick(figures: Figure[], section: string, match: (row: string) => boolean): Figure[] {
  return figures.filter((figure) => figure.section === section && match(figure.row));
}

/** A target; `null` when the run measured none of its figures (a run of some subjects only). */
function target(id: string, text: string, checks: Check[]): TargetResult | null {
  if (checks.length === 0) return null;
  return { id, target: text, met: checks.every((entry) => entry.met), checks };
}

/** The targets of the density benchmark (issue 14), each checked at every N. */
export function evaluateTargets(figures: Figure[]): TargetResult[] {
  const createAgent = (row: string) => row.includes('createAgent') && !row.includes('÷');
  const results = [
    target(
      'createAgent-vs-floor',
      'createAgent ≤ 1.15× the CPU per agent-turn of the bare SDK (the floor), at every N',
      pick(figures, 'density:cpuRatio', createAgent).map((f) => check(f, 1.15, 'atMost')),
    ),
    target(
      'loop-delay-vs-floor',
      "createAgent's event-loop delay p99 ≤ 1.5× the floor's, at every N",
      pick(figures, 'density:loopRatio', createAgent).map((f) => check(f, 1.5, 'atMost')),
    ),
    target(
      'langGraph-vs-createAgent',
      'createAgent uses at least 3× less CPU per agent-turn than LangGraph.js (no checkpointer), at every N',
      pick(figures, 'density:langGraphRatio', (row) => row.includes('no checkpointer')).map((f) =>
        check(f, 3, 'atLeast'),
      ),
    ),
  ];
  return results.filter((result) => result !== null);
}

export function describeTarget(result: TargetResult): string[] {
  const lines = [`${result.met ? 'MET   ' : 'MISSED'} ${result.target}`];
  for (const entry of result.checks) {
    const where = ` at N=${entry.n.toLocaleString('en')}`;
    const figure: Figure = {
      section: '',
      row: entry.label,
      n: entry.n,
      unit: 'x',
      median: entry.median,
      min: entry.min,
      max: entry.max,
      samples: entry.min === entry.max ? [entry.median] : [entry.min, entry.median, entry.max],
    };
    const flag = entry.met ? 'ok  ' : 'MISS';
    const noisy = entry.rangeCrosses ? '  (min–max crosses the line)' : '';
    lines.push(`         ${flag} ${entry.label}${where}: ${formatFigure(figure)}${noisy}`);
  }
  return lines;
}
