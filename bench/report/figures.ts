/**
 * What a phase hands back to `run.ts`: figures (a distribution per subject and history size) and
 * ratios, all JSON, so the parent process can print them and store them in results.json.
 */
import type { Series } from '../perTurn/measure.js';
import { pairedRatio, type Stats, stats } from './statistics.js';

export type Unit = 'ns' | 'bytes' | 'x' | 'count';

export interface Figure {
  /** Which table it belongs to, e.g. "delta". */
  section: string;
  /** Row label, e.g. "ours: createAgent, 64 deltas per tick". */
  row: string;
  /** Prior messages (0 when the figure does not depend on history). */
  n: number;
  unit: Unit;
  median: number;
  min: number;
  max: number;
  /** The samples, in round order (ns per op, bytes per agent, or ratios). */
  samples: number[];
  note?: string;
  /** For timings: the same samples as wall time (ns per op), for comparison. */
  wall?: { median: number; min: number; max: number };
}

export interface PhaseResult {
  phase: string;
  figures: Figure[];
  /** Anything else worth keeping (settings, sizes, checks). */
  extra: Record<string, unknown>;
}

export function figure(
  section: string,
  row: string,
  n: number,
  unit: Unit,
  values: Stats | readonly number[],
  note?: string,
): Figure {
  const s = Array.isArray(values) ? stats(values as readonly number[]) : (values as Stats);
  const result: Figure = {
    section,
    row,
    n,
    unit,
    median: s.median,
    min: s.min,
    max: s.max,
    samples: s.samples,
  };
  if (note !== undefined) result.note = note;
  return result;
}

/** A timing figure: CPU ns per op, with the wall-time distribution beside it. */
export function timingFigure(
  section: string,
  row: string,
  n: number,
  series: Series | undefined,
): Figure {
  if (series === undefined) throw new Error(`timing ${section}/${row}@${n}: no samples`);
  const result = figure(section, row, n, 'ns', series.cpu);
  const wall = stats(series.wall);
  result.wall = { median: wall.median, min: wall.min, max: wall.max };
  return result;
}

/** A ratio figure (of CPU times) from two series sampled in the same interleaved rounds. */
export function ratioFigure(
  section: string,
  row: string,
  n: number,
  numerator: Series | undefined,
  denominator: Series | undefined,
): Figure {
  if (numerator === undefined || denominator === undefined) {
    throw new Error(`ratio ${section}/${row}@${n}: a series is missing`);
  }
  return figure(section, row, n, 'x', pairedRatio(numerator.cpu, denominator.cpu));
}
