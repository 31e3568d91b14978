/** Snapshots: plain JSON, restorable, continuing exactly where they left off. */
import { describe, expect, it } from 'vitest';
import { AgentCore, type AgentSnapshot } from '../../src/index.js';
import {
  call,
  completed,
  llmError,
  retryFired,
  textDelta,
  toolOk,
  userInput,
} from '../support/events.js';

const roundTrip = (snapshot: AgentSnapshot): AgentSnapshot =>
  JSON.parse(JSON.stringify(snapshot)) as AgentSnapshot;

describe('AgentCore.snapshot', () => {
  it('is plain JSON that survives a round trip unchanged', () => {
    const core = new AgentCore({
      tools: [{ name: 'read_file', mutating: false, inputSchema: { type: 'object' } }],
    });
    core.handleEvent(userInput('hi'));
    core.handleEvent(textDelta('partial'));
    expect(roundTrip(core.snapshot())).toEqual(core.snapshot());
    expect(core.snapshot()).toMatchObject({ version: 1, state: 'CallingLlm' });
  });

  it('restores mid-tools and continues identically to the original', () => {
    const config = { maxRetries: 3 };
    const original = new AgentCore(config);
    original.handleEvent(userInput('go'));
    original.handleEvent(completed(null, [call('t1', 'read_file'), call('t2', 'edit_file')]));
    original.handleEvent(toolOk('t2'));
    const restored = AgentCore.fromSnapshot(roundTrip(original.snapshot()), config);
    expect(restored.state).toBe('ExecutingTools');
    for (const event of [
      toolOk('t1'),
      { type: 'PostToolsHookCompleted', actionTaken: true } as const,
    ]) {
      expect(restored.handleEvent(event)).toEqual(original.handleEvent(event));
      expect(restored.snapshot()).toEqual(original.snapshot());
    }
  });

  it('restores an agent waiting for calls an interrupt aborted in the nested state it was in', () => {
    const original = new AgentCore();
    original.handleEvent(userInput('go'));
    original.handleEvent(completed(null, [call('t1', 'bash')]));
    original.handleEvent({ type: 'Interrupt' });
    const stored = roundTrip(original.snapshot());
    // The stored form names the top-level state; the nested one follows from the context.
    expect(stored.state).toBe('WaitingForUserInput');
    const restored = AgentCore.fromSnapshot(stored);
    expect(restored.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    for (const event of [userInput('next'), toolOk('t1', 'finished anyway')]) {
      expect(restored.handleEvent(event)).toEqual(original.handleEvent(event));
      expect(restored.stateValue).toEqual(original.stateValue);
    }
    expect(restored.snapshot()).toEqual(original.snapshot());
  });

  it('restores an idle agent as ready for input', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('hi'));
    core.handleEvent(completed('hello'));
    expect(AgentCore.fromSnapshot(roundTrip(core.snapshot())).stateValue).toEqual({
      WaitingForUserInput: 'Ready',
    });
  });

  it('restores in Error with the same jitter sequence', () => {
    const original = new AgentCore({ maxRetries: 5 });
    original.handleEvent(userInput('go'));
    original.handleEvent(llmError('overloaded'));
    const restored = AgentCore.fromSnapshot(roundTrip(original.snapshot()), { maxRetries: 5 });
    for (const event of [retryFired, llmError('overloaded'), retryFired, llmError('server')]) {
      expect(restored.handleEvent(event)).toEqual(original.handleEvent(event));
    }
  });

  it('a restored agent does not share arrays with the object it came from', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('hi'));
    const stored = roundTrip(core.snapshot());
    const restored = AgentCore.fromSnapshot(stored);
    restored.handleEvent(completed('hello'));
    expect(stored.context.messages).toHaveLength(1);
  });

  it('a restored ShuttingDown agent stays final', () => {
    const core = new AgentCore();
    core.handleEvent({ type: 'ShutdownRequested' });
    const restored = AgentCore.fromSnapshot(roundTrip(core.snapshot()));
    expect(restored.done).toBe(true);
    expect(restored.handleEvent(userInput('hi'))).toEqual([]);
  });

  it('takes the new config on restore', () => {
    const core = new AgentCore({ maxRetries: 5 });
    core.handleEvent(userInput('go'));
    const restored = AgentCore.fromSnapshot(roundTrip(core.snapshot()), { maxRetries: 1 });
    restored.handleEvent(llmError('overloaded'));
    expect(restored.state).toBe('WaitingForUserInput');
  });

  it('refuses something that is not a snapshot, saying what it expected', () => {
    expect(() => AgentCore.fromSnapshot({} as AgentSnapshot)).toThrow(
      'not an AgentCore snapshot: expected { version: 1, state, context } as returned by core.snapshot()',
    );
  });
});

describe('AgentCore config', () => {
  it('rejects a bad maxRetries with a message that says the fix', () => {
    expect(() => new AgentCore({ maxRetries: 0 })).toThrow(
      'maxRetries must be a whole number of at least 1 (total attempts per model call); got 0',
    );
  });

  it('rejects two tools with one name', () => {
    expect(() => new AgentCore({ tools: [{ name: 'a' }, { name: 'a' }] })).toThrow(
      "tool 'a' is configured twice; tool names must be unique",
    );
  });

  it('sends tool definitions for specs with an input schema', () => {
    const core = new AgentCore({
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          inputSchema: { type: 'object', properties: {} },
        },
      ],
    });
    const [send] = core.handleEvent(userInput('hi'));
    expect(send).toMatchObject({
      request: {
        tools: [
          { name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } },
        ],
      },
    });
  });

  it('starts from an existing transcript', () => {
    const core = new AgentCore(
      {},
      {
        messages: [
          { role: 'user', content: 'earlier' },
          { role: 'assistant', content: 'ok' },
        ],
      },
    );
    const [send] = core.handleEvent(userInput('now'));
    if (send?.type !== 'SendLlmRequest') throw new Error('expected SendLlmRequest');
    expect(send.request.messages).toHaveLength(3);
  });
});

describe('AgentCore.fromSnapshot in CallingLlm', () => {
  it('drops the streamed text of the call in flight: the call streams again, once', () => {
    const core = new AgentCore();
    core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
    core.handleEvent({ type: 'LlmTextDelta', content: 'Hel' });
    core.handleEvent({ type: 'LlmTextDelta', content: 'lo' });
    core.handleEvent({
      type: 'LlmToolCallDelta',
      callId: 't1',
      toolName: 'bash',
      argumentsFragment: '{"comm',
    });
    const restored = AgentCore.fromSnapshot(
      JSON.parse(JSON.stringify(core.snapshot())) as AgentSnapshot,
    );
    expect(restored.state).toBe('CallingLlm');
    expect(restored.context.streamingText).toBe('');
    expect(restored.context.streamingToolCalls).toEqual([]);
    // The caller re-sends the request, and the model streams its answer again.
    restored.handleEvent({ type: 'LlmTextDelta', content: 'Hello' });
    expect(restored.context.streamingText).toBe('Hello');
    restored.handleEvent({ type: 'Interrupt' });
    expect(restored.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
    });
  });
});
