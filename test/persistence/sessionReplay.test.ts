/**
 * A durable session is the chart, exactly: reopened from its store at any point it is the chart
 * as it stood (what a checkpoint keeps of it, and where it is; the model call in flight starts
 * over), and the whole log replayed through pure mode from the first entry reaches the chart the
 * live session reached. A model call's stream is in the log only where something other than the
 * model came before the call's own end, merged. Random sessions from the property generator.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, EVENT_TRAITS } from '../../src/index.js';
import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import {
  Chooser,
  configArb,
  lengthArb,
  nextEvent,
  PLAUSIBLE,
  World,
} from '../machine/properties/scenario.js';
import { countEvents, durableView, misplacedStreams, replayLog } from './logChecks.js';

describe('a durable session', () => {
  it('reopens as the chart stood at any point, and its whole log replays to the chart it reached', async () => {
    let reopened = 0;
    let keptStreams = 0;
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.gen(),
        lengthArb,
        fc.gen(),
        async (config, g, length, cuts) => {
          const store = createMemorySessionStore();
          let session = await SessionCore.open(store, 's', { config });
          const choose = new Chooser(g);
          const world = new World();
          // Text the session holds back from the log: streamed since the stream was let go.
          let heldText = false;
          let expectedTexts = 0;
          for (let index = 0; index < length; index++) {
            // The llm actor starts each attempt with LlmStarted; a pure-mode caller may not.
            const planned =
              session.core.state === 'CallingLlm' && choose.chance(6)
                ? { kind: 'valid' as const, event: { type: 'LlmStarted' } as AgentEvent }
                : nextEvent(choose, session.core, world, PLAUSIBLE);
            if (planned.kind !== 'valid') continue;
            const { event } = planned;
            if (session.core.accepts(event)) {
              const traits = EVENT_TRAITS[event.type];
              if (event.type === 'LlmTextDelta') heldText = true;
              // A new attempt drops what the last one streamed.
              else if (event.type === 'LlmStarted') heldText = false;
              else if (!traits.streamed && !traits.displayOnly) {
                if (heldText && traits.origin !== 'llm') expectedTexts++;
                heldText = false;
              }
            }
            await session.handleEvent(event);
            if (cuts(fc.integer, { min: 0, max: 4 }) !== 0) continue;
            // The process stops here; a new one opens the session from the store.
            const before = durableView(session.core);
            session = await SessionCore.open(store, 's', { config });
            heldText = false;
            reopened++;
            expect(durableView(session.core)).toEqual(before);
            // Half the time it goes on as a restarted process does: with the Resume.
            if (session.resume !== undefined && cuts(fc.boolean)) {
              await session.handleEvent(session.resume);
            }
          }
          const log = await store.entries('s');
          const replayed = replayLog(log, config);
          expect(replayed.refused).toEqual([]);
          expect(durableView(replayed.core)).toEqual(durableView(session.core));
          expect(misplacedStreams(log)).toEqual([]);
          // No text of a call that ended on its own (or that a restart cut off) is in the log.
          expect(countEvents(log, 'LlmTextDelta')).toBe(expectedTexts);
          keptStreams += expectedTexts;
        },
      ),
      { numRuns: 60 },
    );
    expect(reopened).toBeGreaterThan(100);
    // The runs did hold streams an interrupt or an input came into.
    expect(keptStreams).toBeGreaterThan(0);
  });
});
