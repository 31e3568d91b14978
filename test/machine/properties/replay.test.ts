/**
 * Properties of pure mode as a replayable log (DESIGN section 2) and of snapshots (section 4,
 * "Serialisable"): the same events give the same actions, and a snapshot taken anywhere and sent
 * through JSON continues exactly as the original does (in `CallingLlm`, the model call starts
 * over).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentCore,
  type AgentEvent,
  type AgentSnapshot,
  describeStateValue,
} from '../../../src/index.js';
import {
  Chooser,
  compactionStage,
  configArb,
  guard,
  isCheckingPrompt,
  isCheckingStop,
  lengthArb,
  nextEvent,
  NO_SHUTDOWN,
  PLAUSIBLE,
  type Planned,
  Probe,
  withWaitFor,
  World,
} from './scenario.js';

const viaJson = (snapshot: AgentSnapshot): AgentSnapshot =>
  JSON.parse(JSON.stringify(snapshot)) as AgentSnapshot;

/**
 * The states a path can be split in that take events: the top-level ones, the waits for the
 * hooks on a turn, and the states of a compaction (before a request, and asked for between
 * turns), which a snapshot stores only as their top-level state (the nested one follows from the
 * context on restore).
 */
const SPLIT_STATES = [
  'WaitingForUserInput',
  'WaitingForUserInput.CheckingPrompt',
  'WaitingForUserInput.CheckingCompaction',
  'WaitingForUserInput.Compacting',
  'CallingLlm',
  'CallingLlm.CheckingCompaction',
  'CallingLlm.Compacting',
  'ExecutingTools',
  'PostToolsHook',
  'Error',
  'ProcessingLlmResponse.CheckingStop',
] as const;

/** Where the core stands, as SPLIT_STATES names it. */
function placeOf(core: AgentCore): string {
  return isCheckingPrompt(core) || isCheckingStop(core) || compactionStage(core) !== null
    ? describeStateValue(core.stateValue)
    : core.state;
}

describe('AgentCore properties', () => {
  it('is deterministic: two cores fed the same events give equal actions and snapshots at every step', () => {
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        const first = Probe.create(config);
        const second = Probe.create(config);
        const choose = new Chooser(g);
        const world = new World();
        const events: Planned[] = [];
        guard(config, events, () => {
          for (let index = 0; index < length; index++) {
            const planned = nextEvent(choose, first.core, world, PLAUSIBLE);
            events.push(planned);
            const a = first.feed(planned);
            const b = second.feed(planned);
            expect(b.actions).toEqual(a.actions);
            expect(b.diagnostics.map((d) => d.code)).toEqual(a.diagnostics.map((d) => d.code));
            expect(second.core.snapshot()).toEqual(first.core.snapshot());
          }
          // The log replayed later, into a third core, ends in the same place.
          const replayed = new AgentCore(config);
          for (const planned of events) replayed.handleEvent(planned.event as AgentEvent);
          expect(replayed.snapshot()).toEqual(first.core.snapshot());
        });
      }),
      { numRuns: 100 },
    );
  });

  it('a snapshot sent through JSON at any point continues identically to the original', () => {
    // Where the continuations started: a property that only ever split in one state, or never
    // went on after the split, would say nothing of the others.
    const continuedFrom = new Set<string>();
    fc.assert(
      fc.property(
        configArb,
        fc.gen(),
        lengthArb,
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.constantFrom(...SPLIT_STATES), { nil: undefined }),
        (drawn, g, length, splitAt, splitIn) => {
          // A path aiming for the wait for a hook has that hook on, and one aiming for a
          // compaction before a request a window small enough.
          const config = withWaitFor(splitIn, drawn);
          const original = Probe.create(config);
          const choose = new Chooser(g);
          const world = new World();
          const events: Planned[] = [];
          // A path aiming for a state may take longer to get there (the compaction a Compact
          // event asks for needs two exchanges first), and goes on after it as long.
          const steps = splitIn === undefined ? length : Math.max(length, 60);
          guard(config, events, () => {
            // At a random point, or where the path first reaches the state drawn: the rarer
            // states (PostToolsHook, Error) are split in as often as the common ones.
            let split = splitIn === undefined ? Math.min(splitAt, steps) : steps;
            for (let index = 0; index < split; index++) {
              // A path aiming for a state is not shut down on the way there.
              const profile = splitIn === undefined ? PLAUSIBLE : NO_SHUTDOWN;
              const planned = nextEvent(choose, original.core, world, profile);
              events.push(planned);
              original.feed(planned);
              if (splitIn !== undefined && placeOf(original.core) === splitIn) split = index + 1;
            }
            const stored = viaJson(original.core.snapshot());
            const untouched = viaJson(stored);
            const restored = new Probe(AgentCore.fromSnapshot(stored, config));
            expect(restored.core.state).toBe(original.core.state);
            // Nested states too: a wait for a hook is restored as the same wait.
            expect(restored.core.stateValue).toEqual(original.core.stateValue);
            expect(restored.core.done).toBe(original.core.done);
            if (original.core.state === 'CallingLlm') {
              // The model call starts over on restore: what it had streamed is dropped, the
              // rest is kept.
              const { context } = original.core.snapshot();
              expect(restored.core.snapshot()).toEqual({
                version: 1,
                state: 'CallingLlm',
                context: { ...context, streamingText: '', streamingToolCalls: [] },
              });
              // Started over on both (`Resume`), the call is asked again alike, and from there
              // the two go on as one.
              const resume: Planned = { kind: 'valid', event: { type: 'Resume' } };
              events.push(resume);
              expect(restored.feed(resume).actions).toEqual(original.feed(resume).actions);
            }
            const waitingForHook = isCheckingPrompt(original.core) || isCheckingStop(original.core);
            if (waitingForHook && choose.chance(2)) {
              // The restarted process asks the hook again (`Resume`), on what it asked about.
              const resume: Planned = { kind: 'valid', event: { type: 'Resume' } };
              events.push(resume);
              const again = restored.feed(resume).actions;
              expect(again).toEqual(original.feed(resume).actions);
              const { context } = original.core;
              expect(again).toEqual(
                isCheckingPrompt(original.core)
                  ? [{ type: 'RunUserPromptSubmitHook', prompt: context.queue[0] }]
                  : [
                      {
                        type: 'RunStopHook',
                        response:
                          context.messages.at(-1)?.role === 'assistant'
                            ? context.messages.at(-1)
                            : null,
                      },
                    ],
              );
            }
            expect(restored.core.snapshot()).toEqual(original.core.snapshot());
            if (split < steps) continuedFrom.add(placeOf(original.core));
            for (let index = split; index < steps; index++) {
              const planned = nextEvent(choose, original.core, world, PLAUSIBLE);
              events.push(planned);
              const a = original.feed(planned);
              const b = restored.feed(planned);
              expect(b.actions).toEqual(a.actions);
              expect(b.diagnostics.map((d) => d.code)).toEqual(a.diagnostics.map((d) => d.code));
              expect(restored.core.snapshot()).toEqual(original.core.snapshot());
            }
            // The restored agent never writes into the object it was restored from.
            expect(stored).toEqual(untouched);
          });
        },
      ),
      { numRuns: 300 },
    );
    // Every state a split can land in that takes events was continued from (ProcessingLlmResponse
    // is transient but for its wait for the stop hook, so no split lands in Deciding).
    expect([...continuedFrom]).toEqual(expect.arrayContaining([...SPLIT_STATES]));
  });
});
