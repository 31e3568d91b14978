/**
 * An agent persisted the standard XState way in the middle of a model call's stream
 * (`actor.getPersistedSnapshot()`, then `createActor(machine, { snapshot })`) restarts its
 * invoked LLM actor, which streams the answer again from the start. The actor says so first
 * (`LlmStarted`), so the restored agent holds each answer once — never the text streamed before
 * the restart followed by the whole answer ("HelloHello") — and an interrupt keeps it once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnyEventObject, createActor, fromCallback } from 'xstate';
import {
  type AgentAction,
  type AgentEvent,
  agentMachine,
  type LlmActorInput,
} from '../../../src/index.js';

/** The answer as the model streams it, in pieces. */
const chunksArb = fc.array(fc.string({ minLength: 1, maxLength: 5 }), {
  minLength: 1,
  maxLength: 12,
});

/**
 * An LLM double that, on every start (the first, and again on restore), says the attempt
 * started and then streams as many chunks of the answer as `deliver` allows it right away.
 */
function streamingLlm(chunks: readonly string[], deliver: () => number) {
  return fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
    sendBack({ type: 'LlmStarted' } satisfies AgentEvent);
    for (const content of chunks.slice(0, deliver())) {
      sendBack({ type: 'LlmTextDelta', content } satisfies AgentEvent);
    }
  });
}

describe('an agent restored from XState’s persisted snapshot in the middle of a stream', () => {
  it('shows each answer once: the restarted call streams it afresh', () => {
    fc.assert(
      fc.property(chunksArb, fc.nat(), (chunks, cut) => {
        const answer = chunks.join('');
        // Before the restart, the stream is cut after some of its chunks.
        const before = cut % (chunks.length + 1);
        let allowed = before;
        const machine = agentMachine.provide({
          actors: { llm: streamingLlm(chunks, () => allowed) },
        });

        const first = createActor(machine, { input: {} });
        first.start();
        first.send({ type: 'UserInput', message: { role: 'user', content: 'say it' } });
        expect(first.getSnapshot().value).toEqual({ CallingLlm: 'Streaming' });
        expect(first.getSnapshot().context.streamingText).toBe(chunks.slice(0, before).join(''));
        const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as unknown;
        first.stop();

        // The restarted process: the same chart, the same actors, this time streaming it all.
        allowed = chunks.length;
        const shown: string[] = [];
        const restored = createActor(machine, {
          input: undefined,
          snapshot: persisted as ReturnType<typeof first.getPersistedSnapshot>,
        });
        restored.on('DisplayMessage', (action: Extract<AgentAction, { type: 'DisplayMessage' }>) =>
          shown.push(action.text),
        );
        restored.start();
        const streamed = restored.getSnapshot();
        expect(streamed.value).toEqual({ CallingLlm: 'Streaming' });
        expect(streamed.context.streamingText).toBe(answer);
        expect(shown.join('')).toBe(answer);

        restored.send({ type: 'Interrupt' });
        const messages = restored.getSnapshot().context.messages;
        // Kept once; text that is only white space is not kept at all (the API refuses it).
        const kept = answer.trim() === '' ? [] : [answer];
        expect(messages).toEqual([
          { role: 'user', content: 'say it' },
          ...kept.map((text) => ({ role: 'assistant', content: [{ type: 'text', text }] })),
        ]);
        restored.stop();
      }),
      { numRuns: 200 },
    );
  });

  it('would show the text twice without LlmStarted, so the property above is not vacuous', () => {
    const chunks = ['Hel', 'lo'];
    let allowed = 1;
    const withoutStart = fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
      for (const content of chunks.slice(0, allowed)) sendBack({ type: 'LlmTextDelta', content });
    });
    const machine = agentMachine.provide({ actors: { llm: withoutStart } });
    const first = createActor(machine, { input: {} });
    first.start();
    first.send({ type: 'UserInput', message: { role: 'user', content: 'say it' } });
    const persisted = first.getPersistedSnapshot();
    first.stop();
    allowed = chunks.length;
    const restored = createActor(machine, { input: undefined, snapshot: persisted });
    restored.start();
    expect(restored.getSnapshot().context.streamingText).toBe('HelHello');
    restored.stop();
  });
});
