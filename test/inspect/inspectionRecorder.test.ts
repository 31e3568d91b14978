/**
 * The recorder behind the inspector page, fed by the chart itself (its placeholder actors, driven
 * by hand), so every step is known in advance.
 */
import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor } from 'xstate';
import { type AgentEvent, agentMachine } from '../../src/index.js';
import { type AgentStateValue, describeStateValue } from '../../src/machine/index.js';
import {
  applyContextPatch,
  type InspectionObserver,
  InspectionRecorder,
  type JsonValue,
  type RecordedStep,
  sanitizeForInspection,
} from '../../src/inspect/index.js';
import { RingBuffer } from '../../src/inspect/ringBuffer.js';
import { SessionLogReplay } from '../../src/inspect/sessionLogReplay.js';
import type { StoredEntry } from '../../src/persistence/index.js';

function startAgent(inspect: InspectionObserver) {
  return createActor(agentMachine, { input: { config: { maxRetries: 3 } }, inspect }).start();
}

const TURN: AgentEvent[] = [
  { type: 'UserInput', message: { role: 'user', content: 'write a.txt' } },
  { type: 'LlmTextDelta', content: 'Wri' },
  { type: 'LlmTextDelta', content: 'ting.' },
  {
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Writing.' },
          { type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a.txt' } },
        ],
      },
      stopReason: 'tool_use',
    },
  },
  { type: 'ToolCompleted', callId: 't1', outcome: { status: 'success', output: 'ok' } },
  { type: 'PostToolsHookCompleted', actionTaken: false },
  {
    type: 'LlmCompleted',
    response: { message: { role: 'assistant', content: 'Done.' }, stopReason: 'end_turn' },
  },
];

/** Two prompts the userPromptSubmit hook decides on: one it blocks, one an interrupt withdraws. */
const PROMPT_HOOK_EVENTS: AgentEvent[] = [
  { type: 'UserInput', message: { role: 'user', content: 'my key is sk-ant-1' } },
  { type: 'UserPromptSubmitDecision', decision: 'block', reason: 'it holds an API key' },
  { type: 'UserInput', message: { role: 'user', content: 'deploy' } },
  { type: 'Interrupt' },
];

/** What the recorder keeps of them: the event, the state, and what the step emitted. */
const DROPPED_STEPS = [
  ['xstate.init', 'WaitingForUserInput.Ready', undefined],
  // RunUserPromptSubmitHook is emitted here: the page has no use for it, so it is not kept.
  ['UserInput', 'WaitingForUserInput.CheckingPrompt', undefined],
  [
    'UserPromptSubmitDecision',
    'WaitingForUserInput.Ready',
    [
      {
        type: 'PromptDropped',
        prompt: { role: 'user', content: 'my key is sk-ant-1' },
        reason: 'the userPromptSubmit hook blocked it: it holds an API key',
      },
    ],
  ],
  ['UserInput', 'WaitingForUserInput.CheckingPrompt', undefined],
  [
    'Interrupt',
    'WaitingForUserInput.Ready',
    [
      {
        type: 'PromptDropped',
        prompt: { role: 'user', content: 'deploy' },
        reason: 'the turn was interrupted before the userPromptSubmit hook decided',
      },
    ],
  ],
];

function rebuild(
  base: Record<string, JsonValue>,
  steps: RecordedStep[],
): Record<string, JsonValue> {
  return steps.reduce((context, step) => applyContextPatch(context, step.patch), base);
}

function value(step: RecordedStep): string {
  return describeStateValue(step.value as AgentStateValue);
}

/** Each recorded step of `agentId` as its event, where it went and what it dropped. */
function droppedView(recorder: InspectionRecorder, agentId: string) {
  return (recorder.history(agentId)?.steps ?? []).map((step) => [
    step.continued ? '↳' : (step.event as { type: string }).type,
    value(step),
    step.emitted,
  ]);
}

describe('InspectionRecorder', () => {
  it('records a step per microstep, transient states included, the event on the first', () => {
    const recorder = new InspectionRecorder();
    const actor = startAgent(recorder.observe({ name: 'writer' }));
    for (const event of TURN) actor.send(event);

    const history = recorder.history(actor.sessionId);
    expect(history?.summary).toMatchObject({
      name: 'writer',
      chartId: 'agent',
      value: { WaitingForUserInput: 'Ready' },
    });
    const steps = history?.steps ?? [];
    expect(
      steps.map((step) => [
        step.continued ? '↳' : (step.event as { type: string }).type,
        value(step),
      ]),
    ).toEqual([
      ['xstate.init', 'WaitingForUserInput.Ready'],
      // CallingLlm sizes the request first (a transient state: compact first, or stream).
      ['UserInput', 'CallingLlm.Sizing'],
      ['↳', 'CallingLlm.Streaming'],
      ['LlmTextDelta', 'CallingLlm.Streaming'],
      ['LlmTextDelta', 'CallingLlm.Streaming'],
      // ProcessingLlmResponse decides in Deciding, a transient state: one microstep each.
      ['LlmCompleted', 'ProcessingLlmResponse.Deciding'],
      // ExecutingTools is a parallel state: its regions say what waits for a person (nothing here).
      ['↳', 'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Idle)'],
      [
        'ToolCompleted',
        'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Idle)',
      ],
      ['↳', 'PostToolsHook'],
      ['PostToolsHookCompleted', 'CallingLlm.Sizing'],
      ['↳', 'CallingLlm.Streaming'],
      ['LlmCompleted', 'ProcessingLlmResponse.Deciding'],
      ['↳', 'WaitingForUserInput.Ready'],
    ]);
    expect(new Set(steps.map((step) => step.seq)).size).toBe(steps.length);

    actor.send({ type: 'ShutdownRequested' });
    const last = recorder.history(actor.sessionId)?.steps.at(-1);
    expect(last).toMatchObject({ value: 'ShuttingDown', status: 'done' });
  });

  it('sends only what changed: appended messages, appended text', () => {
    const recorder = new InspectionRecorder();
    const actor = startAgent(recorder.observe());
    for (const event of TURN.slice(0, 3)) actor.send(event);
    const [, input, streaming, first, second] = recorder.history(actor.sessionId)?.steps ?? [];
    expect(input?.patch?.append).toEqual({
      messages: [{ role: 'user', content: 'write a.txt' }],
    });
    // Entering Streaming changes no message.
    expect(streaming?.continued).toBe(true);
    expect(streaming?.patch?.append).toBeUndefined();
    expect(streaming?.patch?.set?.messages).toBeUndefined();
    expect(first?.patch).toEqual({ extend: { streamingText: 'Wri' } });
    expect(second?.patch).toEqual({ extend: { streamingText: 'ting.' } });
  });

  it('rebuilds the exact context at every step from the patches', () => {
    const recorder = new InspectionRecorder();
    const actor = startAgent(recorder.observe());
    const expected: JsonValue[] = [];
    actor.subscribe((snapshot) => expected.push(sanitizeForInspection(snapshot.context)));
    for (const event of TURN) actor.send(event);
    const history = recorder.history(actor.sessionId);
    const steps = history?.steps ?? [];
    expect(rebuild(history?.base.context ?? {}, steps)).toEqual(
      sanitizeForInspection(actor.getSnapshot().context),
    );
    // And at the end of every event (the snapshots XState reports).
    const atEventEnds = steps
      .map((_, index) => index)
      .filter((index) => steps[index + 1]?.continued !== true)
      .map((index) => rebuild({}, steps.slice(0, index + 1)));
    expect(atEventEnds.slice(1)).toEqual(expected);
  });

  it('keeps at most maxSteps steps, folding older ones into the base', () => {
    const recorder = new InspectionRecorder({ maxSteps: 10 });
    const actor = startAgent(recorder.observe());
    actor.send(TURN[0]!);
    for (let i = 0; i < 50; i += 1) actor.send({ type: 'LlmTextDelta', content: `${i} ` });
    const history = recorder.history(actor.sessionId);
    expect(history?.steps).toHaveLength(10);
    expect(history?.base.seq).toBe((history?.steps[0]?.seq ?? 0) - 1);
    expect(rebuild(history?.base.context ?? {}, history?.steps ?? [])).toEqual(
      sanitizeForInspection(actor.getSnapshot().context),
    );
  });

  it('watches several agents, names them apart, and drops finished ones first', () => {
    const removed: string[] = [];
    const recorder = new InspectionRecorder({ maxAgents: 2 });
    recorder.subscribe((change) => {
      if (change.type === 'removed') removed.push(change.agentId);
    });
    const one = startAgent(recorder.observe({ name: 'fixer' }));
    const two = startAgent(recorder.observe({ name: 'fixer' }));
    expect(recorder.agents().map((agent) => agent.name)).toEqual(['fixer', 'fixer (2)']);
    two.send({ type: 'ShutdownRequested' });
    const three: AnyActorRef = startAgent(recorder.observe());
    expect(removed).toEqual([two.sessionId]);
    expect(recorder.agents().map((agent) => agent.id)).toEqual([one.sessionId, three.sessionId]);
  });

  it('draws machines copied with provide() as one chart', () => {
    const recorder = new InspectionRecorder();
    const copy = agentMachine.provide({});
    const a = createActor(copy, { input: {}, inspect: recorder.observe() }).start();
    const b = createActor(agentMachine, { input: {}, inspect: recorder.observe() }).start();
    const charts = recorder.agents().map((agent) => agent.chartId);
    expect(charts).toEqual(['agent', 'agent']);
    expect(recorder.chart('agent')?.id).toBe('agent');
    a.stop();
    b.stop();
  });

  it('keeps, on the step that dropped it, a prompt the chart dropped with the reason, and nothing else it emitted', () => {
    const recorder = new InspectionRecorder();
    const actor = createActor(agentMachine, {
      input: { config: { hooks: { userPromptSubmit: true } } },
      inspect: recorder.observe(),
    }).start();
    for (const event of PROMPT_HOOK_EVENTS) actor.send(event);

    expect(droppedView(recorder, actor.sessionId)).toEqual(DROPPED_STEPS);
  });

  it('keeps the same on a stored session replayed from its log', () => {
    const recorder = new InspectionRecorder();
    const replay = new SessionLogReplay({ hooks: { userPromptSubmit: true } });
    const writer = recorder.recordAgent({ id: 'stored:hooked', machine: agentMachine });
    writer.step(replay.initialStep(0));
    PROMPT_HOOK_EVENTS.forEach((data, index) => {
      const entry: StoredEntry = { seq: index + 1, at: index + 1, kind: 'event', data };
      const step = replay.next(entry);
      if (step !== undefined) writer.step(step);
    });

    expect(droppedView(recorder, writer.agentId)).toEqual(DROPPED_STEPS);
  });

  it('records a stored session replayed from its log step for step as the live agent, transient states included', () => {
    const view = (recorder: InspectionRecorder, agentId: string) =>
      (recorder.history(agentId)?.steps ?? []).map((step) => [
        step.continued ? '↳' : (step.event as { type: string }).type,
        value(step),
      ]);
    const live = new InspectionRecorder();
    const actor = startAgent(live.observe());
    for (const event of TURN) actor.send(event);

    const stored = new InspectionRecorder();
    const replay = new SessionLogReplay({});
    const writer = stored.recordAgent({ id: 'stored:turn', machine: agentMachine });
    writer.step(replay.initialStep(0));
    TURN.forEach((data, index) => {
      const step = replay.next({ seq: index + 1, at: index + 1, kind: 'event', data });
      if (step !== undefined) writer.step(step);
    });

    const steps = view(stored, writer.agentId);
    expect(steps).toEqual(view(live, actor.sessionId));
    expect(steps).toContainEqual(['↳', 'CallingLlm.Streaming']);
  });

  it('never throws into the agent: failures go to onError', () => {
    const errors: unknown[] = [];
    const recorder = new InspectionRecorder({ onError: (error) => errors.push(error) });
    recorder.subscribe(() => {
      throw new Error('listener broke');
    });
    const actor = startAgent(recorder.observe());
    actor.send(TURN[0]!);
    expect(actor.getSnapshot().value).toEqual({ CallingLlm: 'Streaming' });
    expect(errors.length).toBeGreaterThan(0);
    expect(String(errors[0])).toContain('listener broke');
  });
});

describe('RingBuffer', () => {
  it('keeps the newest items and hands back the evicted one', () => {
    const ring = new RingBuffer<number>(3);
    expect([1, 2, 3].map((n) => ring.push(n))).toEqual([undefined, undefined, undefined]);
    expect(ring.push(4)).toBe(1);
    expect(ring.toArray()).toEqual([2, 3, 4]);
    expect(ring.at(0)).toBe(2);
    expect(ring.at(3)).toBeUndefined();
    expect(() => new RingBuffer(0)).toThrow(/capacity of at least 1/);
  });
});
