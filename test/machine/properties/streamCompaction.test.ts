/**
 * The law a session log relies on to store a model call's stream as a few events (DESIGN section
 * 5, "streamed deltas are not stored one by one"): the chart only appends streamed text and
 * tool-call fragments, and `LlmStarted` clears them, so from any state of `CallingLlm.Streaming`
 * the merged events of `compactStream` leave the chart exactly where the whole run of events does
 * — the streamed fields, and the transcript an interrupt then keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentCore, type AgentEvent } from '../../../src/index.js';
import {
  compactStream,
  describeStateValue,
  type StreamedEvent,
} from '../../../src/machine/index.js';
import { configArb, NO_SHUTDOWN, runScenario } from './scenario.js';

/** Where a request streams (after any compaction it needed). */
const STREAMING = 'CallingLlm.Streaming';

/** Call ids of the stream; `toolu_streaming` is one the scenario's own fragments also use. */
const CALL_IDS = ['toolu_streaming', 'toolu_a', 'toolu_b'];

const streamedEventArb: fc.Arbitrary<StreamedEvent> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ type: 'LlmStarted' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('LlmTextDelta' as const),
      content: fc.string({ maxLength: 6 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('LlmToolCallDelta' as const),
      callId: fc.constantFrom(...CALL_IDS),
      toolName: fc.constantFrom('bash', 'edit_file'),
      argumentsFragment: fc.string({ maxLength: 6 }),
    }),
  },
);

const streamArb = fc.array(streamedEventArb, { maxLength: 40 });

/** Feeds `events` to `core`; each must be taken. */
function feed(core: AgentCore, events: readonly AgentEvent[]): void {
  for (const event of events) {
    expect(core.accepts(event), `${event.type} is taken in ${core.state}`).toBe(true);
    core.handleEvent(event);
  }
}

describe('a model call stream, compacted', () => {
  it('leaves the chart where the whole stream leaves it, and an interrupt keeps the same transcript', () => {
    let fromCallingLlm = 0;
    fc.assert(
      fc.property(
        configArb,
        fc.gen(),
        streamArb,
        fc.nat({ max: 40 }),
        (config, g, stream, splitAt) => {
          // A reachable state where a request streams, which may already hold streamed text and
          // fragments (not a compaction before it: what its summary call streams is dropped).
          const { probe, events } = runScenario(
            { g, config, length: 100, profile: NO_SHUTDOWN, stopIn: STREAMING },
            () => undefined,
          );
          if (describeStateValue(probe.core.stateValue) !== STREAMING) return;
          fromCallingLlm++;
          // Three cores where the scenario's stands (pure mode replays its log exactly).
          const start = () => {
            const core = new AgentCore(config);
            for (const planned of events) core.handleEvent(planned.event as AgentEvent);
            expect(core.snapshot()).toEqual(probe.core.snapshot());
            return core;
          };
          const whole = start();
          const compacted = start();
          const inTwo = start();

          feed(whole, stream);
          feed(compacted, compactStream(stream));
          // As a session log writes it: merged up to an event of another origin, then on again.
          const split = Math.min(splitAt, stream.length);
          feed(inTwo, [
            ...compactStream(stream.slice(0, split)),
            ...compactStream(stream.slice(split)),
          ]);
          for (const core of [compacted, inTwo]) {
            expect(core.context.streamingText).toBe(whole.context.streamingText);
            expect(core.context.streamingToolCalls).toEqual(whole.context.streamingToolCalls);
            expect(core.snapshot()).toEqual(whole.snapshot());
          }

          const interrupted = whole.handleEvent({ type: 'Interrupt' });
          for (const core of [compacted, inTwo]) {
            expect(core.handleEvent({ type: 'Interrupt' })).toEqual(interrupted);
            expect(core.context.messages).toEqual(whole.context.messages);
            expect(core.snapshot()).toEqual(whole.snapshot());
          }
        },
      ),
      { numRuns: 300 },
    );
    // Most runs reach a streaming request, so the law was checked from many states.
    expect(fromCallingLlm).toBeGreaterThan(200);
  });

  it('is as short as the law allows: one start, one text, one fragment per call, and merging again changes nothing', () => {
    fc.assert(
      fc.property(streamArb, (stream) => {
        const compacted = compactStream(stream);
        const lastStart = stream.findLastIndex((event) => event.type === 'LlmStarted');
        const after = stream.slice(lastStart + 1);
        const callIds = new Set(
          after.flatMap((event) => (event.type === 'LlmToolCallDelta' ? [event.callId] : [])),
        );
        const texts = compacted.filter((event) => event.type === 'LlmTextDelta');
        expect(compacted.filter((event) => event.type === 'LlmStarted')).toHaveLength(
          lastStart >= 0 ? 1 : 0,
        );
        expect(texts.length).toBeLessThanOrEqual(1);
        expect(compacted.filter((event) => event.type === 'LlmToolCallDelta')).toHaveLength(
          callIds.size,
        );
        expect(compactStream(compacted)).toEqual(compacted);
      }),
      { numRuns: 500 },
    );
  });
});
