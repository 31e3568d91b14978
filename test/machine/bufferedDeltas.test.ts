/**
 * `AgentCore` takes streamed deltas in `CallingLlm` without a transition each and hands them to
 * the chart merged, later. Whatever the mix of deltas and whatever ends the stream, every event's
 * actions and every context read must equal what XState's own `transition()`, one delta at a
 * time, gives.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
  type AgentSnapshot,
  agentMachine,
  nextRandom,
} from '../../src/index.js';
import { MachineRun } from '../graph/machineRun.js';
import { call, completed, interrupt, llmError, shutdown, userInput } from '../support/events.js';

const config: AgentConfig = {
  maxRetries: 3,
  tools: [
    { name: 'read_file', mutating: false },
    { name: 'write_file', mutating: true },
  ],
};

const user = userInput('Compare a.ts and b.ts.');

const endings: AgentEvent[] = [
  completed('Reading.', [call('call_a', 'read_file', { path: 'a.ts' })]),
  completed(null),
  interrupt,
  shutdown,
  llmError('overloaded', 'busy'),
  llmError('auth', 'bad key'),
];

/** A seeded stream of deltas: text (some empty, some shown), tool fragments of three calls. */
function randomDeltas(seed: number, count: number): AgentEvent[] {
  let state = seed;
  const pick = (n: number) => {
    const next = nextRandom(state);
    state = next.state;
    return Math.floor(next.value * n);
  };
  const deltas: AgentEvent[] = [];
  for (let index = 0; index < count; index++) {
    const kind = pick(6);
    if (kind < 3) {
      const content = ['Hel', 'lo', '', ' wörld ', '\n'][pick(5)]!;
      deltas.push(
        pick(4) === 0
          ? { type: 'LlmTextDelta', content, shown: true }
          : { type: 'LlmTextDelta', content },
      );
    } else {
      const call = pick(3);
      deltas.push({
        type: 'LlmToolCallDelta',
        callId: `call_${call}`,
        toolName: call === 2 ? 'write_file' : 'read_file',
        argumentsFragment: ['{"pa', 'th":', '"x.ts"}', ''][pick(4)]!,
      });
    }
  }
  return deltas;
}

function compare(events: AgentEvent[], readContextEvery: number): void {
  const reference = new MachineRun(agentMachine, config);
  const diagnostics: AgentDiagnostic[] = [];
  const core = new AgentCore(config, { onDiagnostic: (d) => diagnostics.push(d) });
  events.forEach((event, index) => {
    const expected = reference.send(event);
    const actions = core.handleEvent(event);
    expect(actions, `actions of event ${index} (${event.type})`).toEqual(expected.actions);
    expect(core.state).toBe(expected.state);
    if (index % readContextEvery === 0) {
      expect(core.context, `context after event ${index}`).toEqual(expected.context);
    }
    if (!expected.accepted) expect(diagnostics.pop()?.code).toBe('EVENT_NOT_ACCEPTED');
  });
  const expected = reference.view();
  expect(core.context).toEqual(expected.context);
  const stored = core.snapshot();
  expect(stored.state).toBe(expected.state);
  expect(stored.context.streamingText).toBe(expected.context.streamingText);
  expect(stored.context.messages).toEqual(
    expected.context.messages.slice(0, expected.context.messageCount),
  );
  expect(diagnostics).toEqual([]);
}

describe('AgentCore takes streamed deltas in CallingLlm without a transition each', () => {
  it('returns each delta its own DisplayMessage at once, and the chart gets the text merged', () => {
    const core = new AgentCore(config);
    core.handleEvent(user);
    expect(core.handleEvent({ type: 'LlmTextDelta', content: 'Hel' })).toEqual([
      { type: 'DisplayMessage', text: 'Hel' },
    ]);
    expect(core.handleEvent({ type: 'LlmTextDelta', content: 'lo', shown: true })).toEqual([]);
    expect(core.context.streamingText).toBe('Hello');
  });

  it.each(endings.map((ending) => [ending.type, ending] as const))(
    'matches transition() delta by delta, whatever ends the stream (%s)',
    (_name, ending) => {
      for (let seed = 1; seed <= 12; seed++) {
        const deltas = randomDeltas(seed * 7919 + ending.type.length, 10 + seed * 3);
        compare([user, ...deltas, ending], 1 + (seed % 5) * 7);
      }
    },
  );

  it('refuses deltas where the chart does, one by one, and keeps what it buffered', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const core = new AgentCore(config, { onDiagnostic: (d) => diagnostics.push(d) });
    expect(core.handleEvent({ type: 'LlmTextDelta', content: 'early' })).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(['EVENT_NOT_ACCEPTED']);
    core.handleEvent(user);
    core.handleEvent({ type: 'LlmTextDelta', content: 'kept' });
    // A malformed delta is refused before anything is buffered or handed on.
    expect(core.handleEvent({ type: 'LlmTextDelta' } as unknown as AgentEvent)).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(['EVENT_NOT_ACCEPTED', 'MALFORMED_EVENT']);
    core.handleEvent(interrupt);
    expect(core.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'kept' }],
    });
    expect(core.handleEvent({ type: 'LlmTextDelta', content: 'late' })).toEqual([]);
    expect(diagnostics.at(-1)?.code).toBe('EVENT_NOT_ACCEPTED');
  });

  it('stores and restores mid-stream with the buffered text in the snapshot', () => {
    const core = new AgentCore(config);
    core.handleEvent(user);
    core.handleEvent({ type: 'LlmTextDelta', content: 'half a ' });
    core.handleEvent({ type: 'LlmTextDelta', content: 'thought' });
    const stored = JSON.parse(JSON.stringify(core.snapshot())) as AgentSnapshot;
    const restored = AgentCore.fromSnapshot(stored, config);
    expect(restored.state).toBe('CallingLlm');
    expect(restored.context.streamingText).toBe('half a thought');
    restored.handleEvent(interrupt);
    expect(restored.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'half a thought' }],
    });
  });
});
