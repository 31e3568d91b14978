/**
 * The rule for the limits of a resumed `run --session`: it runs with the `--max-turns` and
 * `--max-budget` it was created with. The limits are guards of the chart, and its log is read back
 * (`sessions show`, `inspect --session`, the next resume) with the limits it records: a turn run
 * with another limit would stop somewhere else than its log is read back stopping.
 */
import { AgentStatechartError } from '../machine/index.js';
import type { SessionLimits } from './sessionConfig.js';

/** Each limit's flag, and what a session created without it ran with. */
const LIMIT_FLAGS: Readonly<Record<keyof SessionLimits, { flag: string; unset: string }>> = {
  maxTurns: { flag: '--max-turns', unset: 'the default number of model calls per turn' },
  maxBudgetUsd: { flag: '--max-budget', unset: 'no budget' },
};

/**
 * Refuses, with `INVALID_OPTION` and what to pass instead, a resume of session `sessionId`
 * (which records the limits `recorded`) with a `--max-turns` or `--max-budget` other than the one
 * it records, or with one it was created without. The same value given again is taken; without
 * the flag the session runs with its own.
 *
 * @example
 * checkResumedSessionLimits('fix-tests', sessionLimits(header.metadata), { maxTurns: options.maxTurns });
 */
export function checkResumedSessionLimits(
  sessionId: string,
  recorded: SessionLimits,
  given: SessionLimits,
): void {
  for (const key of Object.keys(LIMIT_FLAGS) as (keyof SessionLimits)[]) {
    const value = given[key];
    if (value === undefined || value === recorded[key]) continue;
    const { flag, unset } = LIMIT_FLAGS[key];
    const had = recorded[key];
    const ran = had === undefined ? `${unset} (no ${flag})` : `${flag} ${had}`;
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sessionId}' ran with ${ran}, so ${flag} ${value} cannot be given to it (a session keeps the limits it was created with, since its log is read back with them); leave out ${flag} to resume it with its own, or start a new session (another --session NAME) for this limit`,
    );
  }
}
