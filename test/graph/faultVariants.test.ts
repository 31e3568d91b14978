/**
 * Every generated path that calls the model, replayed with a fault injected before the model's
 * reply: a 429 with `Retry-After`, a 5xx, and a stream cut in the middle of a tool call. The
 * fault comes from the LLM double in actor mode, beside XState's `transition()`; pure mode takes
 * the same `LlmError` events in the walk itself, at every `CallingLlm.Streaming` state. See
 * `faults.ts` for when a faulted replay stops.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChartWalk, walkChart } from './chartWalk.js';
import { describeFailures, type PathFailure } from './checkChart.js';
import { FaultReplay, type FaultOutcome, faults } from './faults.js';
import { graphVariants } from './variants.js';

let walks: ChartWalk[];

beforeAll(() => {
  walks = graphVariants.map((variant) => walkChart(variant));
}, 60_000);

describe('paths with a fault before the model reply', () => {
  it.each(faults.map((fault) => [fault.name, fault] as const))(
    'retry once after a %s within the bounds, then end where the path without it ends, or at rest with a valid transcript',
    (_name, fault) => {
      const replay = new FaultReplay(fault, walks);
      const failures: PathFailure[] = [];
      const outcomes = new Map<FaultOutcome, number>();
      for (const path of walks.flatMap((walk) => walk.paths)) {
        const { outcome, problems } = replay.run(path);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (problems.length > 0) failures.push({ path, problems });
      }
      expect(describeFailures(failures)).toEqual([]);
      // Both ways a fault can play out do happen, so neither check is vacuous.
      expect(outcomes.get('absorbed')).toBeGreaterThan(0);
      expect(outcomes.get('gave up')).toBeGreaterThan(0);
    },
    60_000,
  );
});
