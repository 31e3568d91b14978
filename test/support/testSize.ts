import { isCi } from './isCi.js';

/**
 * The size of a suite that an environment variable may change (`FUZZ_RUNS`, `SESSIONS`, `TURNS`):
 * a whole number of at least 1, `fallback` when the variable is unset or empty. Smaller sizes are
 * for a quick look on a workstation; under CI ({@link isCi}) a knob may grow a suite but never
 * shrink it below `fallback`. Anything else is refused, so a typo cannot make a suite run nothing.
 *
 * @example
 * const RUNS = testSize('FUZZ_RUNS', 200); // FUZZ_RUNS=20 → 20, or 200 under CI
 */
export function testSize(
  name: string,
  fallback: number,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const given = env[name]?.trim();
  if (given === undefined || given === '') return fallback;
  const size = Number(given);
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new Error(`${name} must be a whole number of at least 1; got '${env[name]}'`);
  }
  return isCi(env) ? Math.max(size, fallback) : size;
}
