/**
 * What a durable session stores grows with what is new: every message that came from outside
 * the chart is kept once, in the log entry that brought it, and the transcript records point at
 * it. In pure mode too, where the chart keeps its own copy of each event it is given.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, SessionCore } from '../../src/index.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';

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

describe('what a session records', () => {
  it('is the copy the chart took, not the caller’s object, even while an earlier write is still going on', async () => {
    const memory = createMemorySessionStore();
    // A store that takes its time, as one across a network does: later writes wait in the queue.
    const slow: SessionStore = {
      ...memory,
      append: async (sessionId, write) => {
        await sleep(20);
        return memory.append(sessionId, write);
      },
    };
    const session = await SessionCore.open(slow, 's');
    const first = session.handleEvent({
      type: 'UserInput',
      message: { role: 'user', content: 'first' },
    });
    const second = { role: 'user' as const, content: 'second' };
    const queued = session.handleEvent({ type: 'UserInput', message: second });
    second.content = 'changed by the caller afterwards';
    await Promise.all([first, queued]);
    const entries = await memory.entries('s');
    expect(entries.map((entry) => entry.data)).toEqual([
      { type: 'UserInput', message: { role: 'user', content: 'first' } },
      { type: 'UserInput', message: { role: 'user', content: 'second' } },
    ]);
  });
});
