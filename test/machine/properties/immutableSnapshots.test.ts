/**
 * XState's guarantee (DESIGN section 4): a snapshot never changes after it is produced. Every
 * context, stored snapshot and emitted request of a long random session is kept alongside a deep
 * copy made at the time; at the end, each must still equal its copy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configArb, PLAUSIBLE, runScenario } from './scenario.js';

interface Kept {
  value: unknown;
  copy: unknown;
}

const keep = (kept: Kept[], value: unknown) => kept.push({ value, copy: structuredClone(value) });

describe('snapshots in pure mode', () => {
  it('never change after they are produced: contexts, stored snapshots and requests alike', () => {
    let checked = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), fc.integer({ min: 100, max: 300 }), (config, g, length) => {
        const kept: Kept[] = [];
        const { probe } = runScenario({ g, config, length, profile: PLAUSIBLE }, (step, probe) => {
          const { config: _config, ...context } = step.contextAfter;
          keep(kept, context);
          keep(kept, probe.core.snapshot());
          for (const action of step.actions) keep(kept, action);
        });
        keep(kept, probe.core.snapshot());
        for (const { value, copy } of kept) expect(value).toEqual(copy);
        checked += kept.length;
      }),
      { numRuns: 30 },
    );
    expect(checked).toBeGreaterThan(1_000);
  });
});
