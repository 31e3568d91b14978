/**
 * Usage, cost and limits in actor mode, against the local Messages API server: a `usage`
 * notification per model call with the cache tokens the server reports, `agent.usage`, the sums
 * kept by a stored session, and a model that never stops calling tools stopped at `maxTurns`.
 */
import { describe, expect, it } from 'vitest';
import {
  type Agent,
  type AgentNotifications,
  type CreateAgentOptions,
  findTranscriptViolations,
} from '../../src/index.js';
import { reply, type Script } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('usage-');
const temp = scripted.temp;

/** An agent on the scripted model, on a model with a list price. */
function agentOn(script: Script, options: CreateAgentOptions = {}): Promise<Agent> {
  return scripted.start(script, { model: 'claude-sonnet-4-5', ...options });
}

describe('usage and cost in actor mode', () => {
  it('reports each call with its cache tokens and cost, and sums them on agent.usage', async () => {
    const agent = await agentOn([
      reply([{ type: 'tool_use', name: 'look_up', input: { word: 'cache' } }], {
        usage: {
          input_tokens: 20,
          output_tokens: 30,
          cache_creation_input_tokens: 4_000,
          cache_read_input_tokens: 0,
        },
      }),
      reply('A cache keeps things.', {
        usage: {
          input_tokens: 60,
          output_tokens: 8,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 4_000,
        },
      }),
    ]);
    const reported: Array<AgentNotifications['usage']> = [];
    agent.on('usage', (usage) => reported.push(usage));
    agent.send('What is a cache?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });

    const first = (20 * 3 + 30 * 15 + 4_000 * 3.75) / 1e6;
    const second = (60 * 3 + 8 * 15 + 4_000 * 0.3) / 1e6;
    expect(reported.map(({ call }) => call)).toEqual([
      {
        input_tokens: 20,
        output_tokens: 30,
        cache_creation_input_tokens: 4_000,
        cache_read_input_tokens: 0,
        costUsd: expect.closeTo(first, 12) as number,
      },
      {
        input_tokens: 60,
        output_tokens: 8,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 4_000,
        costUsd: expect.closeTo(second, 12) as number,
      },
    ]);
    expect(reported.map(({ model }) => model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5']);
    expect(reported[1]?.turn).toEqual(agent.usage.turn);
    expect(agent.usage.session).toMatchObject({
      calls: 2,
      input_tokens: 80,
      output_tokens: 38,
      cache_creation_input_tokens: 4_000,
      cache_read_input_tokens: 4_000,
    });
    expect(agent.usage.session.costUsd).toBeCloseTo(first + second, 12);
  });

  it('keeps the sums in a stored session, across a reopening', async () => {
    const first = await agentOn(
      [
        reply('One.', { usage: { input_tokens: 100, output_tokens: 10 } }),
        reply('Two.', { usage: { input_tokens: 200, output_tokens: 20 } }),
      ],
      {
        store: temp.store,
        sessionId: 's1',
      },
    );
    first.send('one');
    await first.waitUntilIdle({ timeoutMs: 30_000 });
    await first.shutdown();
    const again = await agentOn([], { store: temp.store, sessionId: 's1' });
    expect(again.usage.session).toMatchObject({ calls: 1, input_tokens: 100, output_tokens: 10 });
    again.send('two');
    await again.waitUntilIdle({ timeoutMs: 30_000 });
    expect(again.usage.session).toMatchObject({ calls: 2, input_tokens: 300, output_tokens: 30 });
    expect(again.usage.turn).toMatchObject({ calls: 1, input_tokens: 200 });
  });
});

describe('a model that never stops calling tools', () => {
  it('is stopped at maxTurns: the calls answered, the user told, the next input taken', async () => {
    const runaway: Script = (_request, turnIndex) =>
      reply([{ type: 'tool_use', name: 'look_up', input: { word: `w${turnIndex}` } }]);
    const agent = await agentOn(runaway, { maxTurns: 5 });
    const errors: string[] = [];
    agent.on('error', ({ message }) => errors.push(message));
    agent.send('Look everything up');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(scripted.server().requests).toHaveLength(5);
    expect(errors).toEqual([
      'Stopped: this turn made 5 model calls, the most maxTurns (5) allows; the last tool calls were answered. Send a message to go on.',
    ]);
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
    expect(agent.usage.turn.calls).toBe(5);

    agent.send('And now?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(scripted.server().requests).toHaveLength(10);
  });
});
