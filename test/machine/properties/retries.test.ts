/**
 * Properties of failed model calls (DESIGN section 4, "Bounded"): retries are bounded by
 * `maxRetries` total attempts, wait Loom's exponential backoff with jitter, honour `Retry-After`,
 * and non-retryable errors give up at once. A compaction's summary call that fails is never
 * retried: the request goes out whole, and the user is told.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentConfig, LlmError } from '../../../src/index.js';
import { describeStateValue } from '../../../src/machine/index.js';
import {
  actionsOf,
  configArb,
  FLAKY_MODEL,
  lengthArb,
  requestStarts,
  runScenario,
} from './scenario.js';

const NON_RETRYABLE = new Set(['auth', 'invalid_request']);

/**
 * The delay bounds for retry attempt `attempt` (2 for the first retry: attempt 1 was the call
 * that failed): `min(cap, base × factor^(attempt-2))`, jittered ×0.5–1.5 and rounded.
 */
function backoffBounds(config: AgentConfig, attempt: number) {
  const base = config.retry?.baseDelayMs ?? 200;
  const factor = config.retry?.factor ?? 2;
  const cap = config.retry?.maxDelayMs ?? 5000;
  const capped = Math.min(cap, base * factor ** (attempt - 2));
  return { capped, low: Math.round(capped * 0.5), high: Math.round(capped * 1.5) };
}

describe('AgentCore properties', () => {
  it('bounds retries: under maxRetries in a row, exponential backoff with jitter, Retry-After honoured, non-retryable never retried', () => {
    const jitter: number[] = [];
    let retries = 0;
    let giveUps = 0;
    let longestRun = 0;
    let failedSummaries = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        const maxRetries = config.maxRetries ?? 3;
        let inARow = 0;
        runScenario({ g, config, length, profile: FLAKY_MODEL }, (step) => {
          const scheduled = actionsOf(step.actions, 'ScheduleRetry');
          expect(step.contextAfter.retries).toBeLessThan(maxRetries);
          const { planned } = step;
          if (planned.kind !== 'valid' || step.diagnostics.length > 0) {
            expect(scheduled).toEqual([]);
            return;
          }
          const { event } = planned;
          // A compaction's summary call is not an attempt of the request it comes before.
          const summaryCall = describeStateValue(step.stateValueBefore).endsWith('.Compacting');
          if (event.type !== 'LlmError') {
            expect(scheduled).toEqual([]);
            const newTurn =
              event.type === 'UserInput' && step.stateBefore === 'WaitingForUserInput';
            const answered = event.type === 'LlmCompleted' && !summaryCall;
            if (answered || event.type === 'Interrupt' || newTurn) inARow = 0;
            if (event.type === 'RetryTimeoutFired') {
              // The request goes out again, or the compaction it needs first starts.
              expect(step.stateAfter).toBe('CallingLlm');
              expect(requestStarts(step.actions)).toHaveLength(1);
            }
            return;
          }
          const error: LlmError = event.error;
          if (summaryCall) {
            // The summary failed: the compaction is skipped, once, and the attempts of the model
            // request it was for are as they were.
            failedSummaries++;
            expect(scheduled).toEqual([]);
            expect(actionsOf(step.actions, 'CompactionSkipped')).toHaveLength(1);
            expect(actionsOf(step.actions, 'DisplayError')[0]?.message).toContain(error.message);
            // The transcript is as it was (a queued prompt may start the next turn after it, which
            // counts its attempts afresh).
            const kept = step.contextAfter.messages.slice(0, step.contextBefore.messages.length);
            expect(kept).toEqual(step.contextBefore.messages);
            const nextTurn = step.contextAfter.messages.length > step.contextBefore.messages.length;
            expect(step.contextAfter.retries).toBe(nextTurn ? 0 : step.contextBefore.retries);
            return;
          }
          const retryable = !NON_RETRYABLE.has(error.kind);
          if (retryable && inARow + 1 < maxRetries) {
            inARow++;
            retries++;
            longestRun = Math.max(longestRun, inARow);
            expect(scheduled).toHaveLength(1);
            expect(step.stateAfter).toBe('Error');
            const [retry] = scheduled;
            // The upcoming attempt: the first call was attempt 1, so the first retry is attempt 2.
            expect(retry?.attempt).toBe(inARow + 1);
            const delay = retry?.delayMs ?? Number.NaN;
            expect(Number.isInteger(delay)).toBe(true);
            const { capped, low, high } = backoffBounds(config, inARow + 1);
            const after = error.retryAfterMs;
            if (after !== undefined && after > high) {
              expect(delay).toBe(after);
            } else {
              expect(delay).toBeGreaterThanOrEqual(Math.max(low, after ?? 0));
              expect(delay).toBeLessThanOrEqual(high);
              if (after === undefined) jitter.push(delay / capped);
            }
          } else {
            // Giving up: at once for auth and invalid_request, after maxRetries attempts otherwise.
            giveUps++;
            inARow = 0;
            expect(scheduled).toEqual([]);
            expect(step.stateAfter).not.toBe('Error');
            const shown = actionsOf(step.actions, 'DisplayError');
            expect(shown).toHaveLength(1);
            expect(shown[0]?.message).toContain(error.message);
            expect(step.contextAfter.retries).toBe(0);
          }
        });
      }),
      // Enough runs that the retries and the give-ups come well over their minimums below on any
      // seed.
      { numRuns: 300 },
    );
    expect(retries).toBeGreaterThan(200);
    expect(giveUps).toBeGreaterThan(200);
    expect(failedSummaries).toBeGreaterThan(5);
    expect(longestRun).toBe(3); // maxRetries 4: three retries in a row, then the fourth error gives up
    // The jitter really spreads the delays over ×0.5–1.5 of the exponential value.
    expect(Math.min(...jitter)).toBeLessThan(0.7);
    expect(Math.max(...jitter)).toBeGreaterThan(1.3);
  });
});
