/**
 * Broken actor implementations (a bug in a user-supplied actor) become state and data: the model
 * gets an answer, the turn goes on, nothing escapes to the host.
 */
import { describe, expect, it } from 'vitest';
import { type AnyEventObject, createActor, fromCallback, waitFor } from 'xstate';
import {
  type AgentAction,
  type AgentEvent,
  agentMachine,
  findTranscriptViolations,
  type LlmActorInput,
  type PostToolsHookInput,
  type RetryTimerInput,
  type ToolActorInput,
} from '../../src/index.js';
import { call, completed } from '../support/events.js';

function llmReplying(...replies: AgentEvent[]) {
  return fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
    const event = replies.shift() ?? completed('done');
    const timer = setTimeout(() => sendBack(event), 1);
    return () => clearTimeout(timer);
  });
}

describe('actor failures', () => {
  it('a tool actor that throws is answered with an error result naming the tool', async () => {
    const tool = fromCallback<AnyEventObject, ToolActorInput>(({ input }) => {
      throw new Error(`disk gone while running ${input.call.name}`);
    });
    const actor = createActor(
      agentMachine.provide({
        actors: {
          llm: llmReplying(completed(null, [call('t1', 'read_file')]), completed('ok')),
          tool,
        },
      }),
      { input: {} },
    );
    actor.start();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    await waitFor(actor, (s) => s.value === 'WaitingForUserInput' && s.context.responses === 2, {
      timeout: 5_000,
    });
    const results = actor.getSnapshot().context.messages[2];
    expect(results?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: "tool 'read_file' failed: disk gone while running read_file",
        is_error: true,
      },
    ]);
    actor.stop();
  });

  it('an llm actor that throws becomes an LlmError and is retried', async () => {
    let calls = 0;
    const llm = fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
      calls += 1;
      if (calls === 1) throw new Error('socket factory exploded');
      const timer = setTimeout(() => sendBack(completed('recovered')), 1);
      return () => clearTimeout(timer);
    });
    const retryTimer = fromCallback<AnyEventObject, RetryTimerInput>(({ sendBack }) => {
      const timer = setTimeout(() => sendBack({ type: 'RetryTimeoutFired' }), 1);
      return () => clearTimeout(timer);
    });
    const emitted: AgentAction[] = [];
    const actor = createActor(agentMachine.provide({ actors: { llm, retryTimer } }), { input: {} });
    actor.on('*', (action) => emitted.push(action));
    actor.start();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    await waitFor(actor, (s) => s.context.responses === 1, { timeout: 5_000 });
    expect(calls).toBe(2);
    expect(actor.getSnapshot().context.lastError).toBeNull();
    expect(emitted.map((action) => action.type)).toContain('ScheduleRetry');
    actor.stop();
  });

  it('a hook actor that throws is reported and the agent goes back to the model', async () => {
    const postToolsHook = fromCallback<AnyEventObject, PostToolsHookInput>(() => {
      throw new Error('git exploded');
    });
    const tool = fromCallback<AnyEventObject, ToolActorInput>(({ input, sendBack }) => {
      const timer = setTimeout(
        () =>
          sendBack({
            type: 'ToolCompleted',
            callId: input.call.id,
            outcome: { status: 'success', output: 'ok' },
          }),
        1,
      );
      return () => clearTimeout(timer);
    });
    const emitted: AgentAction[] = [];
    const actor = createActor(
      agentMachine.provide({
        actors: {
          llm: llmReplying(completed(null, [call('t1', 'write_file')]), completed('ok')),
          tool,
          postToolsHook,
        },
      }),
      { input: {} },
    );
    actor.on('*', (action) => emitted.push(action));
    actor.start();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    await waitFor(actor, (s) => s.value === 'WaitingForUserInput' && s.context.responses === 2, {
      timeout: 5_000,
    });
    expect(emitted).toContainEqual({
      type: 'DisplayError',
      message: 'The post-tools hook failed and was skipped: git exploded',
    });
    expect(findTranscriptViolations(actor.getSnapshot().context.messages)).toEqual([]);
    actor.stop();
  });
});
