/**
 * Plumbing of the per-turn phase. It runs in its own Node process (fresh heap and JIT,
 * `--expose-gc`), started by `run.ts` with the path to write its result to.
 */
import { writeFileSync } from 'node:fs';
import { servedFamily } from './measure.js';
import type { PhaseResult } from '../report/figures.js';

export interface PhaseSettings {
  /** Counted rounds per comparison. */
  rounds: number;
  /** Warm-up samples per case, at least. */
  warmup: number;
  /** Warm-up CPU time per process, at least (see `MeasureOptions.warmupMs`). */
  warmupMs: number;
  /** `--quick`: fewer rounds and smaller sizes, for trying the harness out. */
  quick: boolean;
}

/** `rounds`: counted rounds of a full run, for a phase that needs more than the default 9. */
export function phaseSettings({ rounds = 9 }: { rounds?: number } = {}): PhaseSettings {
  const quick = process.argv.includes('--quick');
  return { rounds: quick ? 3 : rounds, warmup: quick ? 1 : 2, warmupMs: quick ? 200 : 2000, quick };
}

const started = Date.now();

export function progress(phase: string, message: string): void {
  if (servedFamily() !== undefined) return; // a child sampling one family: the parent reports progress
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
  process.stderr.write(`  ${seconds}s [${phase}] ${message}\n`);
}

/** Writes the result where the parent asked (the first argument), or prints it. */
export function finishPhase(result: PhaseResult): void {
  const out = process.argv[2];
  const json = JSON.stringify(result);
  if (out !== undefined && !out.startsWith('--')) writeFileSync(out, json);
  else process.stdout.write(`${json}\n`);
}
