/**
 * Retry delays: exponential backoff with jitter, drawn from a seeded generator so that pure mode
 * stays deterministic (the same events give the same delays) and a snapshot carries the
 * generator's state with it.
 */

/**
 * Backoff settings with every default filled in.
 *
 * @example
 * const backoff: BackoffSettings = { baseDelayMs: 200, factor: 2, maxDelayMs: 5000 };
 */
export interface BackoffSettings {
  baseDelayMs: number;
  factor: number;
  maxDelayMs: number;
}

/**
 * Loom's numbers: 200 ms, doubling, capped at 5 s.
 *
 * @example
 * retryDelay(1, DEFAULT_BACKOFF, 1); // { delayMs: 100…300, rngState: … }
 */
export const DEFAULT_BACKOFF: Readonly<BackoffSettings> = Object.freeze({
  baseDelayMs: 200,
  factor: 2,
  maxDelayMs: 5000,
});

/**
 * One step of mulberry32: a tiny, fast, well-distributed 32-bit generator whose whole state is
 * one integer, which is what lets it live in a JSON snapshot.
 *
 * @example
 * const { value, state } = nextRandom(42); // value in [0, 1)
 */
export function nextRandom(state: number): { value: number; state: number } {
  const next = (state + 0x6d2b79f5) | 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  return { value, state: next };
}

/**
 * The delay before retry number `attempt` (1 for the first retry): `base × factor^(attempt-1)`,
 * capped, times a jitter factor in [0.5, 1.5), and never shorter than the server's `Retry-After`.
 *
 * @example
 * const { delayMs, rngState } = retryDelay(2, DEFAULT_BACKOFF, 7, 1500);
 * // delayMs >= 1500 because the server asked for 1.5 s
 */
export function retryDelay(
  attempt: number,
  settings: BackoffSettings,
  rngState: number,
  retryAfterMs?: number,
): { delayMs: number; rngState: number } {
  const exponential = settings.baseDelayMs * settings.factor ** Math.max(0, attempt - 1);
  const capped = Math.min(settings.maxDelayMs, exponential);
  const { value, state } = nextRandom(rngState);
  const jittered = Math.round(capped * (0.5 + value));
  const delayMs = retryAfterMs !== undefined ? Math.max(jittered, retryAfterMs) : jittered;
  return { delayMs, rngState: state };
}
