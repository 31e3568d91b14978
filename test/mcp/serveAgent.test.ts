/**
 * An agent served over MCP, driven by the SDK's own client over a linked in-memory transport,
 * with real agents on the local Messages API server: a task's answer, progress in order, a
 * cancelled call interrupting the turn, sessions that remember, failures as tool errors,
 * approvals refused rather than waited for, and close() shutting the agents down.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AgentMcpServer,
  type AgentNotifications,
  createAgent,
  type CreateAgentOptions,
  defineTool,
  type ServedAgent,
  serveAgentOverMcp,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  type MessagesRequestBody,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
  unauthorized,
} from '../../src/testing/index.js';
import { lookUp } from '../agent/scriptedAgents.js';

/** A mutating tool: in `default` mode every call of it asks for approval. */
const erase = defineTool({
  name: 'erase',
  description: 'Erase a thing',
  input: z.object({ thing: z.string() }),
  mutating: true,
  execute: ({ thing }) => `erased ${thing}`,
});

const SLOW_TEXT = 'This answer streams slowly, one small piece at a time. '.repeat(8);

/** The model: what it answers depends on the last message, so calls may come in any order. */
function model(request: MessagesRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  const content = last?.content;
  if (Array.isArray(content) && content.some((block) => block.type === 'tool_result')) {
    return reply('The tools have answered.');
  }
  const said = typeof content === 'string' ? content : '';
  if (said.startsWith('look up')) {
    return reply([{ type: 'tool_use', name: 'look_up', input: { word: 'colour' } }]);
  }
  if (said.startsWith('erase')) {
    return reply([{ type: 'tool_use', name: 'erase', input: { thing: 'everything' } }]);
  }
  if (said === 'slow') return reply(SLOW_TEXT, { eventDelayMs: 40, textChunkSize: 2 });
  if (said === 'fail') return unauthorized();
  if (said === 'what is my name?') {
    const earlier = JSON.stringify(request.messages.slice(0, -1));
    return reply(earlier.includes('Ada') ? 'Your name is Ada.' : 'I do not know.');
  }
  return reply(`You said: ${said}`);
}

interface Made {
  session: string | undefined;
  agent: Agent;
  llmEnds: AgentNotifications['llmEnd'][];
}

let api: MessagesApiServer;
let workspace: string;
let made: Made[];
let opened: Array<{ client: Client; served: AgentMcpServer }>;

beforeEach(async () => {
  api = await startMessagesApiServer({ script: model });
  workspace = await mkdtemp(join(tmpdir(), 'serve-agent-'));
  made = [];
  opened = [];
});

afterEach(async () => {
  for (const { client, served } of opened.splice(0)) {
    await client.close();
    await served.close();
  }
  await api.close();
  await rm(workspace, { recursive: true, force: true });
});

/** A served agent, and an SDK client connected to it. */
async function serve(agentOptions: CreateAgentOptions = {}) {
  const served = serveAgentOverMcp({
    name: 'test-agent',
    description: 'It answers test prompts.',
    createAgent: (session) => {
      const agent = createAgent({
        workspace,
        autoCommit: false,
        tools: [lookUp, erase],
        anthropic: { baseURL: api.baseURL, apiKey: 'test-key' },
        ...agentOptions,
      });
      const llmEnds: Made['llmEnds'] = [];
      agent.on('llmEnd', (ending) => llmEnds.push(ending));
      made.push({ session, agent, llmEnds });
      return agent;
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await served.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  opened.push({ client, served });
  return { served, client };
}

interface TaskAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
}

function runTask(
  client: Client,
  args: { prompt: string; session?: string },
  options: { onprogress?: (progress: Progress) => void; signal?: AbortSignal } = {},
): Promise<TaskAnswer> {
  return client.callTool(
    { name: 'run_task', arguments: args },
    undefined,
    options,
  ) as Promise<TaskAnswer>;
}

function textOf(answer: TaskAnswer): string {
  return answer.content.map((block) => block.text ?? '').join('\n');
}

function stopped(agent: Agent): boolean {
  return agent.actor.getSnapshot().status !== 'active';
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('serveAgentOverMcp', () => {
  it('offers run_task, described for the calling model, and answers with the turn’s final text', async () => {
    const { client } = await serve();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run_task']);
    const [runTaskTool] = tools;
    expect(runTaskTool?.description).toContain('test-agent');
    expect(runTaskTool?.description).toContain('It answers test prompts.');
    expect(runTaskTool?.inputSchema).toMatchObject({
      type: 'object',
      properties: { prompt: { type: 'string' }, session: { type: 'string' } },
      required: ['prompt'],
    });
    expect(client.getServerVersion()?.name).toBe('test-agent');

    const answer = await runTask(client, { prompt: 'hello there' });
    expect(answer.isError).toBeFalsy();
    expect(textOf(answer)).toBe('You said: hello there');
    // A call without a session has an agent of its own, shut down once it has answered.
    expect(made).toHaveLength(1);
    expect(made[0]?.session).toBeUndefined();
    expect(stopped(made[0]!.agent)).toBe(true);
  });

  it('reports progress in order, one notification per model call and tool call, when asked', async () => {
    const { client } = await serve();
    const progress: Progress[] = [];
    const answer = await runTask(
      client,
      { prompt: 'look up colour' },
      { onprogress: (update) => progress.push(update) },
    );
    expect(textOf(answer)).toBe('The tools have answered.');
    expect(progress.map((update) => update.message)).toEqual([
      'model call 1',
      'calling look_up',
      'look_up done',
      'model call 2',
    ]);
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4]);
  });

  it('interrupts the turn when the client cancels the call, and the session goes on', async () => {
    const { client, served } = await serve();
    const controller = new AbortController();
    const texts: string[] = [];
    const cancelledCall = runTask(
      client,
      { prompt: 'slow', session: 'work' },
      { signal: controller.signal },
    );
    await until(() => made.length === 1);
    const { agent, llmEnds } = made[0]!;
    agent.on('text', ({ text }) => texts.push(text));
    await until(() => texts.length > 0);
    controller.abort('changed my mind');
    await expect(cancelledCall).rejects.toThrow();
    await until(() => llmEnds.length === 1);
    expect(llmEnds[0]?.status).toBe('interrupted');
    await agent.waitUntilIdle({ timeoutMs: 5_000 });
    expect(stopped(agent)).toBe(false);

    const answer = await runTask(client, { prompt: 'hello again', session: 'work' });
    expect(textOf(answer)).toBe('You said: hello again');
    expect(made).toHaveLength(1);
    expect(served.sessions()).toEqual(['work']);
    // The interrupted turn's partial text stays in the session's transcript, cut short.
    const messages = api.requests.at(-1)?.body.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const partial = JSON.stringify(messages[1]?.content);
    expect(partial.length).toBeGreaterThan(2);
    expect(partial).not.toContain(SLOW_TEXT.trim());
  });

  it('keeps a session’s transcript across calls, and sessions apart from each other', async () => {
    const { client, served } = await serve();
    await runTask(client, { prompt: 'my name is Ada', session: 'ada' });
    const answer = await runTask(client, { prompt: 'what is my name?', session: 'ada' });
    expect(textOf(answer)).toBe('Your name is Ada.');
    expect(api.requests.at(-1)?.body.messages).toEqual([
      { role: 'user', content: 'my name is Ada' },
      { role: 'assistant', content: [{ type: 'text', text: 'You said: my name is Ada' }] },
      { role: 'user', content: 'what is my name?' },
    ]);
    const elsewhere = await runTask(client, { prompt: 'what is my name?', session: 'other' });
    expect(textOf(elsewhere)).toBe('I do not know.');
    expect(served.sessions().sort()).toEqual(['ada', 'other']);
    expect(made.map(({ session }) => session)).toEqual(['ada', 'other']);
  });

  it('takes the calls of one session one at a time, in the order they came', async () => {
    const { client } = await serve();
    const progress: Progress[] = [];
    const first = runTask(client, { prompt: 'my name is Ada', session: 'ada' });
    const second = runTask(
      client,
      { prompt: 'what is my name?', session: 'ada' },
      { onprogress: (update) => progress.push(update) },
    );
    const [one, two] = await Promise.all([first, second]);
    expect(textOf(one)).toBe('You said: my name is Ada');
    expect(textOf(two)).toBe('Your name is Ada.');
    expect(progress[0]?.message).toBe('waiting for the task running in session ada');
    expect(made).toHaveLength(1);
  });

  it('answers a failed turn as a tool error with what went wrong', async () => {
    const { client } = await serve();
    const answer = await runTask(client, { prompt: 'fail' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^the task failed: Model call failed \(auth, not retried\)/);
    expect(textOf(answer)).toContain('invalid x-api-key');
  });

  it('refuses an approval no MCP client can give, and says so in the answer', async () => {
    const { client } = await serve({ permissions: { mode: 'default' } });
    const progress: Progress[] = [];
    const answer = await runTask(
      client,
      { prompt: 'erase it', session: 'careful' },
      { onprogress: (update) => progress.push(update) },
    );
    expect(answer.isError).toBeFalsy();
    expect(answer.content[0]?.text).toBe('The tools have answered.');
    expect(answer.content[1]?.text).toMatch(/^Refused: erase\. .*an MCP client cannot answer/);
    expect(progress.map((update) => update.message)).toContain(
      'erase refused: it needs approval, which an MCP client cannot give',
    );
    const results = JSON.stringify(api.requests.at(-1)?.body.messages.at(-1));
    expect(results).toContain('permission denied');
  });

  it('refuses input the schema does not allow, as a tool error', async () => {
    const { client } = await serve();
    const answer = await runTask(client, { prompt: 'hello', session: 'not a name!' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/session/);
    expect(made).toHaveLength(0);
  });

  it('answers as a tool error when the agent cannot be made, and tries again next time', async () => {
    let attempts = 0;
    const served = serveAgentOverMcp({
      createAgent: () => {
        attempts++;
        if (attempts === 1) throw new Error('no agents today');
        return createAgent({
          workspace,
          autoCommit: false,
          tools: [lookUp],
          anthropic: { baseURL: api.baseURL, apiKey: 'test-key' },
        });
      },
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await served.connect(serverSide);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientSide);
    opened.push({ client, served });
    const refused = await runTask(client, { prompt: 'hi', session: 's' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('no agents today');
    expect(served.sessions()).toEqual([]);
    expect(textOf(await runTask(client, { prompt: 'hi', session: 's' }))).toBe('You said: hi');
  });

  it('shuts down every agent it made on close(), a running one included, and refuses new connections', async () => {
    const { client, served } = await serve();
    await runTask(client, { prompt: 'my name is Ada', session: 'ada' });
    const running = runTask(client, { prompt: 'slow', session: 'busy' });
    running.catch(() => undefined);
    await until(() => made.length === 2 && api.requests.length === 2);
    await served.close();
    expect(made.map(({ agent }) => stopped(agent))).toEqual([true, true]);
    expect(served.sessions()).toEqual([]);
    await expect(running).rejects.toThrow();
    await expect(served.connect(InMemoryTransport.createLinkedPair()[1])).rejects.toMatchObject({
      code: 'HOST_CLOSED',
    });
  });

  it('takes an Agent as a ServedAgent', () => {
    const agent: ServedAgent = createAgent({ workspace, tools: [] });
    expect(typeof agent.run).toBe('function');
    return agent.shutdown();
  });

  it('refuses options it cannot use', () => {
    expect(() => serveAgentOverMcp({} as never)).toThrow(/createAgent/);
    expect(() =>
      serveAgentOverMcp({ createAgent: () => createAgent({ tools: [] }), name: ' ' }),
    ).toThrow(/name must be a non-empty string/);
  });
});
