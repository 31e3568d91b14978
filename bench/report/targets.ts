/**
 * The targets, checked against the figures of one run. A check uses the median; when the
 * min–max range of the same figure crosses the threshold the check says so, because on a noisy
 * machine a median just inside the line is not a comfortable pass.
 */
import { DENSITY_SUBJECTS } from '../density/densitySubjects.js';
import { DEFAULT_DURABILITY, PERSISTENCE_ROWS } from '../persistence/persistenceFigures.js';
import type { Figure, Unit } from './figures.js';
import { formatFigure } from './format.js';

export interface Check {
  label: string;
  n: number;
  /** The figure's unit (a ratio, a time, bytes). */
  unit: Unit;
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
    unit: figure.unit,
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

/** The targets of the persistence table (issue 16), and of compaction's (issue 25). */
function persistenceTargets(figures: Figure[]): Array<TargetResult | null> {
  const rows = PERSISTENCE_ROWS;
  const at = (n: number) => (figure: Figure) => figure.n === n;
  return [
    target(
      'persistence-bytes',
      "bytes written per durable turn ≤ 2× the turn's new content, at every history size",
      pick(figures, 'persistBytes', (row) => row === rows.ourBytesRatio).map((f) =>
        check(f, 2, 'atMost'),
      ),
    ),
    target(
      'persistence-flat',
      "CPU per durable turn flat in history: at 10,000 messages ≤ 1.2× at 10 (paired; the store's default durability)",
      pick(figures, 'persistRatio', (row) => row === rows.flat(DEFAULT_DURABILITY))
        .filter(at(10_000))
        .map((f) => check(f, 1.2, 'atMost')),
    ),
    target(
      'persistence-vs-langGraph',
      "CPU per durable turn at least 10× below LangGraph.js + SqliteSaver at 1,000 messages (paired; the store's default durability)",
      pick(figures, 'persistRatio', (row) => row === rows.langGraphRatio(DEFAULT_DURABILITY))
        .filter(at(1_000))
        .map((f) => check(f, 10, 'atLeast')),
    ),
    target(
      'persistence-resume',
      'resuming a 10,000-message session from its file in under 50 ms (CPU time; wall time in the table)',
      pick(figures, 'persistResume', (row) => row.endsWith(': CPU') && !row.includes('compacted'))
        .filter(at(10_000))
        .map((f) => check(f, 50e6, 'atMost')),
    ),
    target(
      'persistence-compacted-resume',
      'resuming a 10,000-message session compacted to its active window in under 50 ms (CPU time; wall time in the table)',
      pick(figures, 'persistResume', (row) =>
        [
          rows.compactedResume('SessionCore.open'),
          rows.compactedResume('createAgent + ready'),
        ].includes(row),
      )
        .filter(at(10_000))
        .map((f) => check(f, 50e6, 'atMost')),
    ),
    target(
      'persistence-compacted-flat',
      "CPU per durable turn flat as the stored history grows: on 10,000 messages compacted to the active window ≤ 1.2× on 10 (paired; the store's default durability)",
      pick(figures, 'persistRatio', (row) => row === rows.compactedFlat(DEFAULT_DURABILITY))
        .filter(at(10_000))
        .map((f) => check(f, 1.2, 'atMost')),
    ),
    target(
      'persistence-idle',
      'stored idle sessions cost no heap: a host over 100,000 (10,000 with --quick) ≤ 1 MB above one over 100 (under 10 bytes a session)',
      pick(figures, 'persistIdle', (row) => row === rows.idleGrowth).map((f) =>
        check(f, 1e6, 'atMost'),
      ),
    ),
  ];
}

/**
 * The targets of the density benchmark (issue 27: below the SDK's own cost, with the package's
 * lean transport), each checked at every N, and the rest.
 */
export function evaluateTargets(figures: Figure[]): TargetResult[] {
  // This checkout's createAgent; its baseline build (`--baseline`) is not held to the targets.
  const createAgent = (row: string) => row === DENSITY_SUBJECTS.agent.label;
  const results = [
    target(
      'createAgent-vs-floor',
      'createAgent ≤ 0.8× the CPU per agent-turn of the bare SDK (the floor), at every N',
      pick(figures, 'density:cpuRatio', createAgent).map((f) => check(f, 0.8, 'atMost')),
    ),
    target(
      'loop-delay-vs-floor',
      "createAgent's event-loop delay p99 ≤ the floor's, at every N",
      pick(figures, 'density:loopRatio', createAgent).map((f) => check(f, 1, 'atMost')),
    ),
    target(
      'langGraph-vs-createAgent',
      'createAgent uses at least 3× less CPU per agent-turn than LangGraph.js (no checkpointer), at every N',
      pick(figures, 'density:langGraphRatio', (row) => row.includes('no checkpointer')).map((f) =>
        check(f, 3, 'atLeast'),
      ),
    ),
    ...persistenceTargets(figures),
  ];
  return results.filter((result) => result !== null);
}

export function describeTarget(result: TargetResult): string[] {
  const lines = [`${result.met ? 'MET   ' : 'MISSED'} ${result.target}`];
  for (const entry of result.checks) {
    const where = ` at ${result.id.startsWith('persistence') ? 'n' : 'N'}=${entry.n.toLocaleString('en')}`;
    const figure: Figure = {
      section: '',
      row: entry.label,
      n: entry.n,
      unit: entry.unit,
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
