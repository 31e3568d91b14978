/**
 * Plumbing shared by the phases. Each phase runs in its own Node process (fresh heap and JIT,
 * `--expose-gc`), started by `run.ts` with the path to write its result to.
 */
import { writeFileSync } from 'node:fs';
import { servesFamily } from '../measure.js';
import type { PhaseResult } from '../report/figures.js';

export interface PhaseSettings {
  /** Counted rounds per comparison. */
  rounds: number;
  warmup: number;
  /** `--quick`: fewer rounds and smaller sizes, for trying the harness out. */
  quick: boolean;
}

export function phaseSettings(full: { rounds?: number } = {}): PhaseSettings {
  const quick = process.argv.includes('--quick');
  return { rounds: quick ? 3 : (full.rounds ?? 9), warmup: quick ? 1 : 2, quick };
}

const started = Date.now();

export function progress(phase: string, message: string): void {
  if (servesFamily()) return; // a child sampling one family: the parent reports progress
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
