/**
 * What a durable session stores grows with what is new: every message that came from outside
 * the chart is kept once, in the log entry that brought it, and the transcript records point at
 * it. In pure mode too, where the chart keeps its own copy of each event it is given.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, SessionCore } from '../../src/index.js';

describe('transcript records', () => {
  it('point into the log for input, model responses and tool results, with no message stored twice', async () => {
    const store = createMemorySessionStore();
    const session = await SessionCore.open(store, 's', {
      config: { tools: [{ name: 'read_file', mutating: false }] },
    });
    const call = {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'read_file',
      input: { path: 'a' },
    } as const;
    await session.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'read a' } });
    await session.started({ effect: 'llm' });
    await session.handleEvent({
      type: 'LlmCompleted',
      response: { message: { role: 'assistant', content: [call] }, stopReason: 'tool_use' },
    });
    await session.started({
      effect: 'tool',
      callId: 'toolu_1',
      name: 'read_file',
      mutating: false,
    });
    await session.handleEvent({
      type: 'ToolCompleted',
      callId: 'toolu_1',
      outcome: { status: 'success', output: 'contents of a' },
    });
    await session.started({ effect: 'llm' });
    await session.handleEvent({
      type: 'LlmCompleted',
      response: { message: { role: 'assistant', content: 'a holds its contents' } },
    });
    expect(session.core.state).toBe('WaitingForUserInput');

    const stored = await store.load('s');
    expect(stored?.transcript.map((record) => record.body)).toEqual([
      { from: 'message', ref: 1 },
      { from: 'response', ref: 3 },
      { from: 'toolResults', parts: [{ ref: 5 }] },
      { from: 'response', ref: 7 },
    ]);
    const reopened = await SessionCore.open(store, 's', { mustExist: true });
    expect(reopened.core.context.messages).toEqual(session.core.context.messages);
  });
});
