/**
 * A durable session is the chart, exactly: reopened from its store at any point it is the chart
 * as it stood (the model call in flight starts over), and the whole log replayed through pure mode
 * from the first entry gives the same snapshot. Random sessions from the property generator.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentCore, type AgentEvent, type AgentSnapshot } from '../../src/index.js';
import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';
import {
  Chooser,
  configArb,
  lengthArb,
  nextEvent,
  PLAUSIBLE,
  World,
} from '../machine/properties/scenario.js';

/** What a restore keeps: the snapshot without streamed text and tool progress. */
function durablePart(snapshot: AgentSnapshot): AgentSnapshot {
  return {
    ...snapshot,
    context: {
      ...snapshot.context,
      streamingText: '',
      streamingToolCalls: [],
      toolRuns: snapshot.context.toolRuns.map(({ progress: _progress, ...run }) => run),
    },
  };
}

async function replayAll(
  store: SessionStore,
  sessionId: string,
  config: object,
): Promise<AgentSnapshot> {
  const core = new AgentCore(config);
  for (const entry of await store.entries(sessionId)) {
    if (entry.kind === 'event') core.handleEvent(entry.data as AgentEvent);
  }
  return core.snapshot();
}

describe('a durable session', () => {
  it('reopens as the chart stood at any point, and its whole log replays to the same snapshot', async () => {
    let reopened = 0;
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
          for (let index = 0; index < length; index++) {
            const planned = nextEvent(choose, session.core, world, PLAUSIBLE);
            if (planned.kind !== 'valid') continue;
            await session.handleEvent(planned.event);
            if (cuts(fc.integer, { min: 0, max: 4 }) !== 0) continue;
            // The process stops here; a new one opens the session from the store.
            const before = durablePart(session.core.snapshot());
            session = await SessionCore.open(store, 's', { config });
            reopened++;
            expect(session.core.snapshot()).toEqual(before);
          }
          expect(await replayAll(store, 's', config)).toEqual(durablePart(session.core.snapshot()));
        },
      ),
      { numRuns: 60 },
    );
    expect(reopened).toBeGreaterThan(100);
  });

  it('refuses a log recorded by another version of the chart, and changes nothing', async () => {
    const store = createMemorySessionStore();
    await store.create({ sessionId: 'old', chartVersion: '0.previous', createdAt: 1 });
    const opening = SessionCore.open(store, 'old');
    await expect(opening).rejects.toMatchObject({ code: 'SESSION_VERSION_MISMATCH' });
    await expect(opening).rejects.toThrow(/another version of the chart/);
    expect((await store.load('old'))?.header.chartVersion).toBe('0.previous');
  });
});
