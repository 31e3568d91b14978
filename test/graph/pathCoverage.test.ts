/**
 * The chart writes its own tests: `xstate/graph` walks it, every generated path is replayed in
 * pure mode and in actor mode beside XState's own `transition()`, and coverage is measured
 * against the machine definition. Prints the one coverage line of `npm test`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChartCheck, checkChart, describeFailures } from './checkChart.js';
import { coverageLine } from './coverage.js';

let check: ChartCheck;

beforeAll(() => {
  check = checkChart();
}, 60_000);

describe('paths generated from the chart', () => {
  it('keep the rules of DESIGN section 4 at every step, and pure and actor mode pass through the same states with the same actions', () => {
    expect(check.paths.length).toBeGreaterThan(0);
    expect(describeFailures(check.failures)).toEqual([]);
  });

  it('cover every state and every transition of the machine definition', () => {
    console.log(coverageLine(check.coverage, check.paths.length));
    expect(check.coverage.states.missing).toEqual([]);
    expect(check.coverage.transitions.missing).toEqual([]);
  });

  it('reach no state from which a turn cannot finish without an interrupt, a shutdown or a crash', () => {
    expect(check.stuck).toEqual([]);
  });
});
