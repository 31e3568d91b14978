/**
 * Properties of events the chart must refuse (DESIGN section 1, "Actions"): an event that is
 * malformed, or not valid in the current state, or sent after shutdown changes nothing, returns
 * no action and is reported as a diagnostic — never thrown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentDiagnosticCode } from '../../../src/index.js';
import {
  Chooser,
  configArb,
  expectedVerdict,
  expectRefused,
  guard,
  lengthArb,
  NOISY,
  nextEvent,
  type Planned,
  Probe,
  World,
} from './scenario.js';

describe('AgentCore properties', () => {
  it('changes nothing for an invalid or malformed event, and reports it with the right code', () => {
    const refusals = new Map<AgentDiagnosticCode, number>();
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        const probe = Probe.create(config);
        const choose = new Chooser(g);
        const world = new World();
        const events: Planned[] = [];
        guard(config, events, () => {
          for (let index = 0; index < length; index++) {
            const planned = nextEvent(choose, probe.core, world, NOISY);
            events.push(planned);
            const verdict = expectedVerdict(probe.core, planned);
            const step = probe.feed(planned);
            if (verdict === 'accepted') {
              expect(step.diagnostics).toEqual([]);
              continue;
            }
            refusals.set(verdict, (refusals.get(verdict) ?? 0) + 1);
            expectRefused(step, verdict);
          }
        });
      }),
      { numRuns: 200 },
    );
    expect(refusals.get('MALFORMED_EVENT')).toBeGreaterThan(400);
    expect(refusals.get('EVENT_NOT_ACCEPTED')).toBeGreaterThan(150);
    expect(refusals.get('AGENT_STOPPED')).toBeGreaterThan(100);
    expect(refusals.has('TRANSITION_FAILED')).toBe(false);
  });
});
