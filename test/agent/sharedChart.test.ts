/**
 * Agents share one provided chart: `provide` builds a whole machine (state nodes, transitions),
 * which a chart of each agent's own would keep for the agent's lifetime. Each agent still runs its
 * own actors — its own tools, its own hooks — and one given replacements gets a chart of its own.
 */
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AgentHooks,
  createAgent,
  createRetryTimerActor,
  defineTool,
} from '../../src/index.js';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';

const agents: Agent[] = [];
let server: MessagesApiServer | undefined;
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.shutdown({ timeoutMs: 1_000 })));
  await server?.close();
  server = undefined;
});

/** An agent whose one tool says which agent ran it. */
function agentNamed(name: string, baseURL: string, hooks?: AgentHooks): Agent {
  const whoAmI = defineTool({
    name: 'who_am_i',
    description: 'Says which agent runs it.',
    input: z.object({}).strict(),
    mutating: false,
    execute: () => name,
  });
  const agent = createAgent({
    anthropic: { baseURL, apiKey: 'test-key' },
    tools: [whoAmI],
    autoCommit: false,
    workspace: tmpdir(),
    ...(hooks === undefined ? {} : { hooks }),
  });
  agents.push(agent);
  return agent;
}

/** The tool results in an agent's transcript. */
function toolResults(agent: Agent): unknown[] {
  return agent.context.messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.filter((block) => block.type === 'tool_result')
      : [],
  );
}

describe('the chart agents run', () => {
  it('is one machine for every agent, each running its own tools and hooks', async () => {
    server = await startMessagesApiServer({
      script: (body) => {
        const last = body.messages.at(-1);
        const answered =
          Array.isArray(last?.content) &&
          last.content.some((block) => block.type === 'tool_result');
        return answered
          ? reply('done')
          : reply([{ type: 'tool_use', name: 'who_am_i', input: {} }]);
      },
    });
    const first = agentNamed('first', server.baseURL);
    const second = agentNamed('second', server.baseURL, {
      preToolUse: () => ({ decision: 'deny', reason: 'only the second agent’s hook says no' }),
    });
    await Promise.all([first.ready, second.ready]);
    expect(first.actor.logic).toBe(second.actor.logic);

    await Promise.all(
      [first, second].map(async (agent) => {
        agent.send('Who are you?');
        await agent.waitUntilIdle();
      }),
    );
    expect(toolResults(first)).toMatchObject([{ content: 'first' }]);
    expect(toolResults(second)).toMatchObject([
      {
        content: 'permission denied by the preToolUse hook: only the second agent’s hook says no',
        is_error: true,
      },
    ]);
  });

  it('is the agent’s own when it is given actors of its own', async () => {
    const own = createAgent({ autoCommit: false, actors: { retryTimer: createRetryTimerActor() } });
    const other = createAgent({ autoCommit: false });
    agents.push(own, other);
    await Promise.all([own.ready, other.ready]);
    expect(own.actor.logic).not.toBe(other.actor.logic);
  });
});
