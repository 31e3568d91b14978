/**
 * The chart's actions about the post-tools hook and the retry backoff.
 */
import { assertEvent } from 'xstate';
import type { ChartAction } from './chartStep.js';
import { completedToolsOf } from './toolRuns.js';

export const runPostToolsHook: ChartAction = (context) => ({
  emit: [{ type: 'RunPostToolsHook', completedTools: completedToolsOf(context.toolRuns) }],
});

/**
 * Hooks fail open: the turn goes on, and the user is told what was skipped (a hook that did its
 * work has nothing to report).
 */
export const reportHookFailure: ChartAction = (_context, event) => {
  assertEvent(event, 'PostToolsHookCompleted');
  if (event.error === undefined) return {};
  return {
    emit: [
      {
        type: 'DisplayError',
        message: `The post-tools hook failed and was skipped: ${event.error}`,
        source: 'hook',
      },
    ],
  };
};

export const cancelHook: ChartAction = () => ({ emit: [{ type: 'Cancel', hook: true }] });

export const announceRetry: ChartAction = (context) => ({
  emit: [{ type: 'ScheduleRetry', delayMs: context.retryDelayMs, attempt: context.retries + 1 }],
});

/** A restored backoff waits only for what was left of it. */
export const resumeRetryDelay: ChartAction = (context, event) => {
  assertEvent(event, 'Resume');
  const elapsed = event.retryElapsedMs ?? 0;
  return { context: { retryDelayMs: Math.max(0, context.retryDelayMs - elapsed) } };
};

export const cancelRetry: ChartAction = () => ({ emit: [{ type: 'Cancel', retry: true }] });
