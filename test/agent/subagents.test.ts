/**
 * Subagents in actor mode, through the real SDK against the local Messages API server: the model
 * hands tasks to subagents with the built-in `task` tool; parallel tasks run in parallel, each
 * with its own transcript; a subagent hands a task of its own to another, two levels deep; a
 * subagent's approval requests are its parent's; what it uses adds to its parent's usage; an
 * interrupt of the parent interrupts every subagent, and every transcript stays valid.
 */
import type { InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createInspectorServer } from '../../src/inspect/index.js';
import {
  type AgentNotifications,
  findTranscriptViolations,
  type Message,
} from '../../src/index.js';
import { sessionTree, subagentLinkOf, subagentSessionId } from '../../src/persistence/index.js';
import { reply, type ScriptFunction } from '../../src/testing/index.js';
import { deploy, lookUp, useScriptedAgents } from './scriptedAgents.js';
import { systemText, textWithResults as textOf } from '../support/agentRequests.js';

const scripted = useScriptedAgents('subagents-');

const AGENTS: Record<string, { description: string; system: string; tools: string[] }> = {
  researcher: {
    description: 'Researches one topic and reports',
    system: 'You are the researcher.',
    tools: ['look_up', 'deploy'],
  },
  checker: {
    description: 'Checks one finding',
    system: 'You are the checker.',
    tools: ['look_up'],
  },
};

/** The model of every agent of the tree, told apart by its system prompt. */
function treeModel(options: { slowChecker?: boolean; deployFirst?: boolean } = {}): ScriptFunction {
  return (request) => {
    const system = systemText(request.system);
    const messages = request.messages as Message[];
    const last = textOf(messages.at(-1));
    const first = textOf(messages[0]);
    if (system.includes('checker')) {
      return reply(`checked: ${first.includes('alpha') ? 'alpha holds' : 'unknown'}`, {
        ...(options.slowChecker ? { eventDelayMs: 400 } : {}),
      });
    }
    if (system.includes('researcher')) {
      const topic = first.includes('alpha') ? 'alpha' : 'beta';
      if (messages.length === 1) {
        if (topic === 'alpha') {
          return reply([
            { type: 'tool_use', name: 'task', input: { agent: 'checker', prompt: 'check alpha' } },
            { type: 'tool_use', name: 'look_up', input: { word: 'alpha' } },
          ]);
        }
        if (options.deployFirst) {
          return reply([{ type: 'tool_use', name: 'deploy', input: { what: 'beta' } }]);
        }
        return reply('beta: researched');
      }
      return reply(`${topic}: researched (${last.slice(0, 60)})`);
    }
    if (messages.length === 1) {
      return reply([
        { type: 'text', text: 'Handing both out.' },
        {
          type: 'tool_use',
          name: 'task',
          input: { agent: 'researcher', description: 'alpha', prompt: 'research alpha' },
        },
        {
          type: 'tool_use',
          name: 'task',
          input: { agent: 'researcher', description: 'beta', prompt: 'research beta' },
        },
      ]);
    }
    return reply(`Both done: ${last.length} characters of findings.`);
  };
}

async function startTree(model: ScriptFunction, extra: Record<string, unknown> = {}) {
  return scripted.start(model, {
    agents: AGENTS,
    tools: [lookUp, deploy],
    ...extra,
  });
}

describe('subagents in createAgent', () => {
  it('runs parallel tasks two levels deep, each with its own transcript, and rolls up usage', async () => {
    const agent = await startTree(treeModel());
    const notes: AgentNotifications['subagent'][] = [];
    agent.on('subagent', (note) => notes.push(note));
    const ownOutput: number[] = [];
    agent.on('usage', ({ call }) => ownOutput.push(call.output_tokens));
    const answer = await agent.run('Research alpha and beta', { timeoutMs: 30_000 });
    expect(answer).toMatch(/^Both done/);

    const results = agent.context.messages[2];
    expect(textOf(results)).toContain('alpha: researched');
    expect(textOf(results)).toContain('checked: alpha holds');
    expect(textOf(results)).toContain('beta: researched');

    // Every request the server saw was a valid transcript, and each agent kept to its own.
    const requests = scripted.server().requests.map((request) => request.body);
    for (const body of requests)
      expect(findTranscriptViolations(body.messages as Message[])).toEqual([]);
    const bySystem = (word: string) =>
      requests.filter((body) => systemText(body.system).includes(word));
    expect(bySystem('researcher')).toHaveLength(3);
    expect(bySystem('checker')).toHaveLength(1);
    // The task tool is offered two levels down, and no further.
    const toolNames = (body: (typeof requests)[number]) =>
      (body.tools ?? []).map((tool) => tool.name);
    expect(toolNames(bySystem('researcher')[0]!)).toEqual(['look_up', 'deploy', 'task']);
    expect(toolNames(bySystem('checker')[0]!)).toEqual(['look_up']);

    // Parallel: both researchers asked the model before either answered its task.
    const firstTwo = requests.slice(1, 3).map((body) => textOf((body.messages as Message[])[0]));
    expect(firstTwo.sort()).toEqual(['research alpha', 'research beta']);

    // The checker's text reached the top agent's listeners, tagged with its place in the tree.
    const checkerText = notes.find(
      (note) => note.path.length === 2 && note.notification.type === 'text',
    );
    expect(checkerText?.path.map((ref) => ref.agent)).toEqual(['researcher', 'checker']);
    // Usage rolls up: the top agent's session counts what the five subagent calls used.
    const own = agent.context.usage.calls;
    expect(own).toBe(2);
    expect(requests).toHaveLength(6);
    // Every model call of the tree, the subagents' at any depth, counts in the top agent's session.
    const sum = (tokens: number[]) => tokens.reduce((total, count) => total + count, 0);
    const childOutput = sum(
      notes.flatMap(({ notification }) =>
        notification.type === 'usage' ? [notification.call.output_tokens] : [],
      ),
    );
    expect(childOutput).toBeGreaterThan(0);
    expect(agent.usage.session.output_tokens).toBe(sum(ownOutput) + childOutput);
  });

  it('shows each subagent on its parent’s inspector page, named after the path of agents down to it, and to its parent’s observer', async ({
    onTestFinished,
  }) => {
    const inspector = createInspectorServer();
    onTestFinished(() => inspector.close());
    const observed = new Set<string>();
    const agent = await startTree(treeModel(), {
      inspector: { server: inspector, name: 'lead' },
      inspect: (event: InspectionEvent) => observed.add(event.actorRef.sessionId),
    });
    await agent.run('Research alpha and beta', { timeoutMs: 30_000 });

    const shown = inspector.recorder.agents();
    expect(shown.map((summary) => summary.name).sort()).toEqual([
      'lead',
      'lead › researcher',
      'lead › researcher (2)',
      'lead › researcher › checker',
    ]);
    // Each went through its own turn to the end, step by step; a subagent is shut down once it
    // has answered its task.
    for (const summary of shown) {
      expect(summary.value, summary.name).toEqual(
        summary.name === 'lead' ? { WaitingForUserInput: 'Ready' } : 'ShuttingDown',
      );
      const states = (inspector.recorder.history(summary.id)?.steps ?? []).map((step) =>
        JSON.stringify(step.value),
      );
      expect(
        states.some((state) => state.includes('CallingLlm')),
        summary.name,
      ).toBe(true);
    }
    // The parent's own observer watched the subagents' actors as well as its own.
    expect(observed.size).toBeGreaterThanOrEqual(4);
  });

  it('asks the parent for a subagent’s approvals, tagged with the subagent', async () => {
    const agent = await startTree(treeModel({ deployFirst: true }), {
      permissions: { mode: 'default' },
    });
    const asked: AgentNotifications['approvalRequest'][] = [];
    agent.on('approvalRequest', (request) => {
      asked.push(request);
      expect(agent.awaitsApproval(request.call.id)).toBe(true);
      agent.approve(request.call.id);
    });
    await agent.run('Research alpha and beta', { timeoutMs: 30_000 });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.call.name).toBe('deploy');
    expect(asked[0]!.subagent?.map((ref) => ref.agent)).toEqual(['researcher']);
    expect(textOf(agent.context.messages[2])).toContain('deployed beta');
  });

  it('keeps a subagent’s mode no wider than its parent’s: plan refuses its deploy', async () => {
    const agent = await startTree(treeModel({ deployFirst: true }), {
      permissions: { mode: 'plan' },
    });
    await agent.run('Research alpha and beta', { timeoutMs: 30_000 });
    const researcherRequests = scripted
      .server()
      .requests.filter((request) => systemText(request.body.system).includes('researcher'));
    const after = researcherRequests.map((request) =>
      textOf((request.body.messages as Message[]).at(-1)),
    );
    expect(after.some((text) => text.includes('permission denied'))).toBe(true);
  });

  it('interrupts every subagent with its parent; every transcript stays valid', async () => {
    const agent = await startTree(treeModel({ slowChecker: true }));
    const started: string[] = [];
    agent.on('subagent', ({ path, notification }) => {
      if (notification.type === 'llmStart') started.push(path.map((ref) => ref.agent).join('/'));
    });
    agent.send('Research alpha and beta');
    await expect.poll(() => started.includes('researcher/checker'), { timeout: 10_000 }).toBe(true);
    agent.interrupt();
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.state).toBe('WaitingForUserInput');
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
    const results = textOf(agent.context.messages.at(-1));
    expect(results).toMatch(/interrupted/);
    // Nothing keeps running: the server gets no request once the agent is idle.
    const seen = scripted.server().requests.length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(scripted.server().requests.length).toBe(seen);
  });

  it('offers a subagent only the agents whose tools it has', async () => {
    const agents = {
      looker: { description: 'Looks things up', system: 'You are the looker.', tools: ['look_up'] },
      deployer: { description: 'Deploys', system: 'You are the deployer.', tools: ['deploy'] },
    };
    const agent = await scripted.start(
      (request) => {
        if (systemText(request.system).includes('looker')) return reply('looked: alpha');
        return request.messages.length === 1
          ? reply([{ type: 'tool_use', name: 'task', input: { agent: 'looker', prompt: 'alpha' } }])
          : reply('done');
      },
      { agents, tools: [lookUp, deploy] },
    );
    await agent.run('go', { timeoutMs: 10_000 });
    expect(textOf(agent.context.messages[2])).toContain('looked: alpha');
    const looker = scripted
      .server()
      .requests.find((request) => systemText(request.body.system).includes('looker'))!;
    const task = (looker.body.tools ?? []).find((tool) => tool.name === 'task');
    expect((looker.body.tools ?? []).map((tool) => tool.name)).toEqual(['look_up', 'task']);
    expect(task?.input_schema).toMatchObject({ properties: { agent: { enum: ['looker'] } } });
  });

  it('keeps each subagent’s session in its parent’s store, linked to its parent', async () => {
    const { store } = scripted.temp;
    const agent = await startTree(treeModel(), { store, sessionId: 'tree-1' });
    await agent.run('Research alpha and beta', { timeoutMs: 30_000 });
    await agent.recorded();
    const tree = sessionTree(await store.list()).map(({ session, depth, link }) => ({
      id: session.sessionId,
      depth,
      agent: link?.agent,
      state: session.state,
    }));
    const calls = (agent.context.messages[1]!.content as Array<{ type: string; id?: string }>)
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.id!);
    expect(tree).toHaveLength(4);
    expect(tree[0]).toEqual({
      id: 'tree-1',
      depth: 0,
      agent: undefined,
      state: 'WaitingForUserInput',
    });
    const researchers = tree.filter((row) => row.depth === 1);
    expect(researchers.map((row) => row.id).sort()).toEqual(
      calls.map((id) => subagentSessionId('tree-1', id)).sort(),
    );
    expect(researchers.every((row) => row.agent === 'researcher')).toBe(true);
    // The checker's session sits under the alpha researcher's, two levels down.
    const checker = tree.find((row) => row.depth === 2)!;
    expect(checker.agent).toBe('checker');
    expect(checker.state).toBe('WaitingForUserInput');
    const alpha = researchers.find((row) => tree.indexOf(row) === tree.indexOf(checker) - 1);
    expect(checker.id.startsWith(`${alpha!.id}/`)).toBe(true);
    // Each holds its own transcript: the task's prompt, then the subagent's work and answer.
    const loaded = await store.load(checker.id);
    expect(loaded?.header.metadata?.subagent).toMatchObject({
      parentSessionId: alpha!.id,
      agent: 'checker',
    });
    expect(textOf(agent.context.messages[2])).toContain('checked: alpha holds');
  });

  it('resumes a subagent in its own session when its parent’s session is opened again', async () => {
    const { store } = scripted.temp;
    const first = await startTree(treeModel({ deployFirst: true }), {
      store,
      sessionId: 'tree-2',
      permissions: { mode: 'default' },
    });
    const waiting = new Promise<string>((resolve) =>
      first.on('approvalRequest', ({ call }) => resolve(call.id)),
    );
    first.send('Research alpha and beta');
    const deployId = await waiting;
    await first.recorded();
    // The process stops here (the first agent is left as it is); another opens the session.
    const second = scripted.open({
      agents: AGENTS,
      tools: [lookUp, deploy],
      store,
      sessionId: 'tree-2',
      permissions: { mode: 'default' },
    });
    const asked: AgentNotifications['approvalRequest'][] = [];
    second.on('approvalRequest', (request) => {
      asked.push(request);
      second.approve(request.call.id);
    });
    await second.ready;
    await second.waitUntilIdle({ timeoutMs: 30_000 });
    expect(second.state).toBe('WaitingForUserInput');
    expect(textOf(second.context.messages.at(-1))).toMatch(/^Both done/);
    // The beta researcher asked again for the same call, from where its session stood.
    expect(asked.map((request) => request.call.id)).toEqual([deployId]);
    expect(asked[0]!.subagent?.map((ref) => ref.agent)).toEqual(['researcher']);
    await second.recorded();
    const children = (await store.list()).filter(
      (session) => subagentLinkOf(session.metadata)?.parentSessionId === 'tree-2',
    );
    expect(children).toHaveLength(2);
    for (const child of children) {
      const entries = await store.entries(child.sessionId);
      const prompts = entries.filter(
        (entry) => entry.kind === 'event' && entry.data.type === 'UserInput',
      );
      expect(prompts, child.sessionId).toHaveLength(1);
    }
    const textsOfResults = textOf(second.context.messages[2]);
    expect(textsOfResults).toContain('deployed beta');
    await first.shutdown({ timeoutMs: 1_000 }).catch(() => undefined);
  });

  it('answers a task for an agent that does not exist with an error the model reads', async () => {
    const agent = await scripted.start(
      (request: { messages: unknown[] }) =>
        request.messages.length === 1
          ? reply([{ type: 'tool_use', name: 'task', input: { agent: 'nobody', prompt: 'x' } }])
          : reply('ok'),
      { agents: AGENTS, tools: [lookUp, deploy] },
    );
    await agent.run('go', { timeoutMs: 10_000 });
    expect(textOf(agent.context.messages[2])).toContain(
      'invalid input: agent must be one of researcher, checker',
    );
  });
});
