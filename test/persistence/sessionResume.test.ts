/**
 * What a session reopened after its process stopped does with the work that was in flight
 * (DESIGN section 5): the model call is sent again, a tool call is run again only if it never
 * started, is read-only or is idempotent, the hook runs again, a backoff waits what was left, a
 * pending approval is asked again, queued input stays queued.
 */
import { describe, expect, it } from 'vitest';
import type { AgentAction, AgentConfig, AgentEvent, LlmResponse } from '../../src/index.js';
import { findTranscriptViolations } from '../../src/index.js';
import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';

const userInput = (content: string): AgentEvent => ({
  type: 'UserInput',
  message: { role: 'user', content },
});

function toolResponse(...calls: Array<[id: string, name: string]>): AgentEvent {
  const response: LlmResponse = {
    message: {
      role: 'assistant',
      content: calls.map(([id, name]) => ({
        type: 'tool_use',
        id,
        name,
        input: { path: `${id}.txt` },
      })),
    },
    stopReason: 'tool_use',
  };
  return { type: 'LlmCompleted', response };
}

/** A session driven to a point, then "restarted": reopened from the same store. */
async function restartAfter(
  config: AgentConfig,
  drive: (session: SessionCore) => Promise<void>,
  clock: () => number = Date.now,
): Promise<{ session: SessionCore; store: SessionStore }> {
  const store = createMemorySessionStore();
  await drive(await SessionCore.open(store, 's', { config, clock }));
  return { session: await SessionCore.open(store, 's', { config, clock }), store };
}

const types = (actions: AgentAction[]) => actions.map((action) => action.type);

describe('a session reopened with work in flight', () => {
  it('sends the model call again, without the text the lost call had streamed', async () => {
    const { session } = await restartAfter({}, async (s) => {
      await s.handleEvent(userInput('hi'));
      await s.started({ effect: 'llm' });
      await s.handleEvent({ type: 'LlmTextDelta', content: 'Hel' });
    });
    expect(session.core.state).toBe('CallingLlm');
    // No tool call had started: the log says so, and the chart makes of it what it means here.
    expect(session.resume).toEqual({ type: 'Resume', startedToolCallIds: [] });
    const actions = await session.handleEvent(session.resume!);
    expect(types(actions)).toEqual(['SendLlmRequest']);
    expect(session.core.context.streamingText).toBe('');
    await session.handleEvent({ type: 'LlmTextDelta', content: 'Hello' });
    await session.handleEvent({ type: 'Interrupt' });
    expect(session.core.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
    });
  });

  it('drops the lost call’s text even where the log kept it (input queued mid-stream)', async () => {
    const { session, store } = await restartAfter({}, async (s) => {
      await s.handleEvent(userInput('hi'));
      await s.started({ effect: 'llm' });
      await s.handleEvent({ type: 'LlmStarted' });
      await s.handleEvent({ type: 'LlmTextDelta', content: 'Hel' });
      await s.handleEvent(userInput('and then?'));
    });
    // The stream was stored, merged, because the input came before the call's end.
    const kept = (await store.entries('s')).flatMap((entry) =>
      entry.kind === 'event' ? [entry.data.type] : [],
    );
    expect(kept).toEqual(['UserInput', 'LlmStarted', 'LlmTextDelta', 'UserInput']);
    expect(session.core.context.streamingText).toBe('Hel');
    expect(types(await session.handleEvent(session.resume!))).toEqual(['SendLlmRequest']);
    expect(session.core.context.streamingText).toBe('');
    await session.handleEvent({ type: 'LlmTextDelta', content: 'Hello' });
    await session.handleEvent({ type: 'Interrupt' });
    expect(session.core.context.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
      // The queued input starts the next turn.
      { role: 'user', content: 'and then?' },
    ]);
  });

  it('runs tool calls again only if they never started or cannot change anything twice', async () => {
    const config: AgentConfig = {
      tools: [
        { name: 'write_file', mutating: true },
        { name: 'read_file', mutating: false },
        { name: 'upsert', mutating: true, idempotent: true },
        { name: 'bash', mutating: true },
      ],
    };
    const { session } = await restartAfter(config, async (s) => {
      await s.handleEvent(userInput('go'));
      await s.handleEvent(
        toolResponse(['t1', 'write_file'], ['t2', 'read_file'], ['t3', 'upsert'], ['t4', 'bash']),
      );
      for (const [callId, name, mutating] of [
        ['t1', 'write_file', true],
        ['t2', 'read_file', false],
        ['t3', 'upsert', true],
      ] as const) {
        await s.started({ effect: 'tool', callId, name, mutating });
      }
      // t4 was about to start when the process stopped.
    });
    expect(session.resume).toEqual({ type: 'Resume', startedToolCallIds: ['t1', 't2', 't3'] });
    const actions = await session.handleEvent(session.resume!);
    expect(actions).toEqual([
      {
        type: 'ExecuteTools',
        calls: [
          { id: 't2', name: 'read_file', input: { path: 't2.txt' } },
          { id: 't3', name: 'upsert', input: { path: 't3.txt' } },
          { id: 't4', name: 'bash', input: { path: 't4.txt' } },
        ],
      },
    ]);
    const ok = { status: 'success' as const, output: 'done' };
    for (const callId of ['t2', 't3', 't4']) {
      await session.handleEvent({ type: 'ToolCompleted', callId, outcome: ok });
    }
    const results = session.core.context.messages.at(-1);
    expect(results?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'interrupted: the process stopped while this call was running; it may or may not have taken effect',
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 't2', content: 'done' },
      { type: 'tool_result', tool_use_id: 't3', content: 'done' },
      { type: 'tool_result', tool_use_id: 't4', content: 'done' },
    ]);
    expect(findTranscriptViolations(session.core.context.messages)).toEqual([]);
  });

  it('runs the post-tools hook again', async () => {
    const { session } = await restartAfter({}, async (s) => {
      await s.handleEvent(userInput('edit'));
      await s.handleEvent(toolResponse(['t1', 'edit_file']));
      await s.started({ effect: 'tool', callId: 't1', name: 'edit_file', mutating: true });
      await s.handleEvent({
        type: 'ToolCompleted',
        callId: 't1',
        outcome: { status: 'success', output: 'ok' },
      });
      await s.started({ effect: 'hook' });
    });
    expect(session.core.state).toBe('PostToolsHook');
    expect(types(await session.handleEvent(session.resume!))).toEqual(['RunPostToolsHook']);
  });

  describe('a retry backoff', () => {
    const config: AgentConfig = {
      retry: { baseDelayMs: 400, factor: 1, maxDelayMs: 400, seed: 3 },
    };
    /** A model call fails; the backoff it asks for starts (recorded first) when `startBackoff`. */
    async function failedCall(s: SessionCore, startBackoff: boolean): Promise<number> {
      await s.handleEvent(userInput('hi'));
      await s.started({ effect: 'llm' });
      const actions = await s.handleEvent({
        type: 'LlmError',
        error: { kind: 'overloaded', message: 'Overloaded' },
      });
      const retry = actions.find((action) => action.type === 'ScheduleRetry');
      if (retry === undefined) throw new Error(`no ScheduleRetry in ${types(actions).join(', ')}`);
      if (startBackoff) await s.started({ effect: 'retry', delayMs: retry.delayMs });
      return retry.delayMs;
    }

    it('waits out what was left of it, not the whole of it again', async () => {
      let now = 10_000;
      let delay = 0;
      const { session } = await restartAfter(
        config,
        async (s) => {
          delay = await failedCall(s, true);
          now += 150;
        },
        () => now,
      );
      expect(session.core.state).toBe('Error');
      expect(delay).toBeGreaterThan(150);
      expect(session.resume).toEqual({
        type: 'Resume',
        startedToolCallIds: [],
        retryElapsedMs: 150,
      });
      const actions = await session.handleEvent(session.resume!);
      expect(actions).toEqual([{ type: 'ScheduleRetry', delayMs: delay - 150, attempt: 2 }]);
    });

    it('waits all of it when the process stopped before it started', async () => {
      let now = 10_000;
      let delay = 0;
      const { session } = await restartAfter(
        config,
        async (s) => {
          delay = await failedCall(s, false);
          now += 150;
        },
        () => now,
      );
      expect(session.resume).toEqual({ type: 'Resume', startedToolCallIds: [] });
      const actions = await session.handleEvent(session.resume!);
      expect(actions).toEqual([{ type: 'ScheduleRetry', delayMs: delay, attempt: 2 }]);
    });

    it('counts every part already waited across restarts, each once', async () => {
      let now = 10_000;
      const clock = () => now;
      const store = createMemorySessionStore();
      const first = await SessionCore.open(store, 's', { config, clock });
      const delay = await failedCall(first, true);
      expect(delay).toBeGreaterThan(300);
      now += 100;
      // Restarted: the backoff goes on with what is left, and its start is recorded again.
      const second = await SessionCore.open(store, 's', { config, clock });
      const [resumed] = await second.handleEvent(second.resume!);
      expect(resumed).toEqual({ type: 'ScheduleRetry', delayMs: delay - 100, attempt: 2 });
      await second.started({ effect: 'retry', delayMs: delay - 100 });
      now += 50;
      const third = await SessionCore.open(store, 's', { config, clock });
      expect(await third.handleEvent(third.resume!)).toEqual([
        { type: 'ScheduleRetry', delayMs: delay - 150, attempt: 2 },
      ]);
      // Stopped again before that restart's backoff was recorded as started.
      now += 30;
      const fourth = await SessionCore.open(store, 's', { config, clock });
      expect(await fourth.handleEvent(fourth.resume!)).toEqual([
        { type: 'ScheduleRetry', delayMs: delay - 180, attempt: 2 },
      ]);
    });
  });

  it('asks again for an approval that was pending, and keeps queued input queued', async () => {
    const config: AgentConfig = { permissions: { mode: 'default' } };
    const { session } = await restartAfter(config, async (s) => {
      await s.handleEvent(userInput('deploy'));
      await s.handleEvent(toolResponse(['t1', 'bash']));
      await s.handleEvent(userInput('and then tell me'));
    });
    expect(session.core.context.queue).toEqual([{ role: 'user', content: 'and then tell me' }]);
    expect(await session.handleEvent(session.resume!)).toEqual([
      { type: 'RequestApproval', call: { id: 't1', name: 'bash', input: { path: 't1.txt' } } },
    ]);
  });

  it('asks again the questions that were waiting for answers, and takes the answers then', async () => {
    const questions = [{ header: 'Name', question: 'What should the service be called?' }];
    const config: AgentConfig = { askUser: true };
    const { session, store } = await restartAfter(config, async (s) => {
      await s.handleEvent(userInput('set it up'));
      await s.handleEvent({
        type: 'LlmCompleted',
        response: {
          message: {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'q1', name: 'ask_user', input: { questions } }],
          },
          stopReason: 'tool_use',
        },
      });
    });
    expect(session.core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
    expect(await session.handleEvent(session.resume!)).toEqual([
      { type: 'AskUser', callId: 'q1', questions },
    ]);
    await session.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: ['orders'] });
    expect(session.core.state).toBe('CallingLlm');
    // The answer is in the log: a session opened again has it, and asks nothing.
    const again = await SessionCore.open(store, 's', { config });
    expect(again.core.state).toBe('CallingLlm');
    expect(again.core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'q1',
        content: 'The user answered:\n[Name] What should the service be called?\n→ orders',
      },
    ]);
  });

  it('answers tool calls an interrupt was still waiting for', async () => {
    const { session } = await restartAfter({}, async (s) => {
      await s.handleEvent(userInput('go'));
      await s.handleEvent(toolResponse(['t1', 'write_file']));
      await s.started({ effect: 'tool', callId: 't1', name: 'write_file', mutating: true });
      await s.handleEvent({ type: 'Interrupt' });
    });
    expect(session.core.state).toBe('WaitingForUserInput');
    await session.handleEvent(session.resume!);
    expect(session.core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'interrupted: the user interrupted the turn before this tool call finished; it may or may not have taken effect',
        is_error: true,
      },
    ]);
  });

  it('needs no resume at rest', async () => {
    const { session } = await restartAfter({}, async (s) => {
      await s.handleEvent(userInput('hi'));
      await s.handleEvent({
        type: 'LlmCompleted',
        response: { message: { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] } },
      });
    });
    expect(session.resume).toBeUndefined();
    expect(session.core.context.messages).toHaveLength(2);
  });
});
