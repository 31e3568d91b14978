/**
 * Subagents on a DBOS worker in this process, on a real PostgreSQL and the local Messages API
 * server: a task call's subagent runs in a session of its own (`parent/callId`, its header
 * linking it to its parent), driven by drives of its own, while the parent's drive rests; the
 * subagent's answer wakes the parent, which goes on with it as the call's result. Parallel tasks,
 * a subagent's own subagent two levels down, usage rolled up, an interrupt of the parent passed on
 * to its subagent, and a subagent's approval answered through its own session. One worker for
 * the file: DBOS is one per process, so the file runs with `npm run test:workers`, each of whose
 * files has a process of its own (`npm test` shares processes between files, and
 * `test/dbos/sessionWorker.test.ts` starts its own worker).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { memoryTracing } from '../support/memoryTracing.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type DriveResult,
  type DriveStreamValue,
  type SessionWorker,
  startSessionWorker,
  type TurnStreamValue,
} from '../../src/dbos/index.js';
import { createToolRegistry, findTranscriptViolations, type Message } from '../../src/index.js';
import { subagentLinkOf } from '../../src/persistence/index.js';
import {
  type MessagesApiServer,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { testLlmClient } from '../support/llmTransport.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';
import { deploy, lookUp } from '../agent/scriptedAgents.js';
import { systemText, textWithResults as textOf } from '../support/agentRequests.js';

const installation = inject('postgresInstallation');
const { exporter, tracer } = memoryTracing('subagents-test');

const AGENTS = {
  researcher: {
    description: 'Researches one topic and reports',
    system: 'You are the researcher.',
    tools: ['look_up'],
    maxTurns: 30,
  },
  checker: {
    description: 'Checks one finding',
    system: 'You are the checker.',
    tools: ['look_up'],
  },
  shipper: { description: 'Ships a finding', system: 'You are the shipper.', tools: ['deploy'] },
};

/** Output tokens each agent's calls report, so what rolls up can be added up exactly. */
const OUTPUT_TOKENS = { lead: 1000, researcher: 100, checker: 10, shipper: 1 };

const task = (id: string, agent: string, prompt: string) =>
  ({ type: 'tool_use', id, name: 'task', input: { agent, prompt } }) as const;

/**
 * Every agent's model, told apart by its system prompt; the lead's by the first word of its
 * session's prompt.
 */
function treeModel(request: { system?: unknown; messages: unknown[] }): ScriptedTurn {
  const system = systemText(request.system);
  const messages = request.messages as Message[];
  const first = textOf(messages[0]);
  const last = textOf(messages.at(-1));
  const used = (agent: keyof typeof OUTPUT_TOKENS) => ({
    usage: { output_tokens: OUTPUT_TOKENS[agent] },
  });
  if (system.includes('checker')) {
    // Slow to answer: its parent's drive has rested by then.
    return reply(`checked: ${first.includes('alpha') ? 'alpha holds' : 'unknown'}`, {
      ...used('checker'),
      responseDelayMs: 300,
    });
  }
  if (system.includes('shipper')) {
    if (messages.length === 1) {
      return reply(
        [{ type: 'tool_use', id: 'toolu_deploy', name: 'deploy', input: { what: 'beta' } }],
        used('shipper'),
      );
    }
    return reply(`shipped (${last.slice(0, 40)})`, used('shipper'));
  }
  if (system.includes('researcher')) {
    // A task that never ends on its own: a slow look-up after another.
    if (first.includes('forever')) {
      return reply(
        [
          {
            type: 'tool_use',
            id: `toolu_again_${messages.length}`,
            name: 'look_up',
            input: { word: 'again' },
          },
        ],
        { ...used('researcher'), eventDelayMs: 60 },
      );
    }
    const topic = first.includes('alpha') ? 'alpha' : 'beta';
    // Slow to start: its parent's drive has rested by then.
    const slow = messages.length === 1 ? { responseDelayMs: 300 } : {};
    if (topic === 'alpha' && messages.length === 1) {
      return reply(
        [
          task('toolu_check', 'checker', 'check alpha'),
          { type: 'tool_use', id: 'toolu_look', name: 'look_up', input: { word: 'alpha' } },
        ],
        { ...used('researcher'), ...slow },
      );
    }
    return reply(`${topic}: researched (${last.slice(0, 80)})`, { ...used('researcher'), ...slow });
  }
  if (messages.length === 1) {
    if (first.startsWith('tree')) {
      return reply(
        [
          { type: 'text', text: 'Handing both out.' },
          task('toolu_alpha', 'researcher', 'research alpha'),
          task('toolu_beta', 'researcher', 'research beta'),
        ],
        used('lead'),
      );
    }
    if (first.startsWith('halt')) {
      return reply([task('toolu_forever', 'researcher', 'research forever')], used('lead'));
    }
    if (first.startsWith('ship')) {
      return reply([task('toolu_ship', 'shipper', 'ship beta')], used('lead'));
    }
  }
  return reply(`Done: ${last.slice(0, 400)}`, used('lead'));
}

describe.skipIf(installation === null)('subagents on a session worker', () => {
  let postgres: PostgresServer;
  let model: MessagesApiServer;
  let worker: SessionWorker;
  let directory: string;
  /** The sessions the tools were given a workspace for. */
  const workspaces: string[] = [];

  const bySystem = (word: string) =>
    model.requests.filter((request) => systemText(request.body.system).includes(word));

  /** Creates the session and sends it its prompt; the first drive's stream and result. */
  async function start(sessionId: string, content: string) {
    await worker.createSession(sessionId);
    const { workflowId } = await worker.send(sessionId, {
      type: 'UserInput',
      message: { role: 'user', content },
    });
    const values: DriveStreamValue[] = [];
    for await (const value of worker.events(workflowId)) values.push(value);
    return { values, result: await worker.result(workflowId) };
  }

  /**
   * Follows a session whose drive rested while subagents worked: the drive each one's answer
   * wakes, until one rests with none at work. Every result on the way, in order.
   */
  async function untilSubagentsAnswer(result: DriveResult): Promise<DriveResult[]> {
    const results = [result];
    for (let last = result; last.subagents !== undefined;) {
      last = await worker.result(last.subagents[0]!.wakeWorkflowId);
      results.push(last);
    }
    return results;
  }

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'subagent-worker-'));
    model = await startMessagesApiServer({ script: (request) => treeModel(request) });
    postgres = await startPostgres({ installation: installation!, database: 'subagents' });
    const tools = createToolRegistry([lookUp, deploy]);
    worker = await startSessionWorker({
      connectionString: postgres.connectionString,
      agent: {
        tools: tools.specs(),
        system: 'You are the lead.',
        permissions: { mode: 'default' },
        agents: AGENTS,
      },
      tools,
      workspace: (sessionId) => {
        workspaces.push(sessionId);
        return directory;
      },
      llm: testLlmClient({ baseURL: model.baseURL, apiKey: 'test-key' }),
      telemetry: { tracer, agentName: 'lead' },
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await postgres?.stop();
    await model?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('runs parallel tasks as drives of their own, two levels deep, while the parent rests; the answers wake it and its usage counts theirs', async () => {
    const { values, result } = await start('tree-1', 'tree: research alpha and beta');
    // The parent's drive rested with both subagents at work, each in a session of its own.
    expect(result).toEqual({
      state: 'ExecutingTools',
      awaitingApproval: [],
      awaitingAnswer: [],
      subagents: ['alpha', 'beta'].map((topic) => ({
        callId: `toolu_${topic}`,
        agent: 'researcher',
        sessionId: `tree-1/toolu_${topic}`,
        workflowId: `session:tree-1/toolu_${topic}:input:1`,
        wakeWorkflowId: `session:tree-1:task:toolu_${topic}`,
      })),
    });
    expect(values.at(-1)).toEqual({ type: 'idle', ...result });
    const started = values.flatMap((value) => (value.type === 'toolStart' ? [value.call.id] : []));
    expect(started).toEqual(['toolu_alpha', 'toolu_beta']);

    const results = await untilSubagentsAnswer(result);
    expect(results.at(-1)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    const parent = await worker.open('tree-1');
    const [, , toolResults, answer] = parent.core.context.messages;
    expect(textOf(toolResults)).toContain('alpha: researched');
    expect(textOf(toolResults)).toContain('checked: alpha holds');
    expect(textOf(toolResults)).toContain('beta: researched');
    expect(answer).toMatchObject({ role: 'assistant' });
    expect(textOf(answer)).toMatch(/^Done: /);

    // The alpha researcher's own drive rested while its checker worked, and was woken in turn.
    const alphaFirst = await worker.result('session:tree-1/toolu_alpha:input:1');
    expect(alphaFirst.state).toBe('ExecutingTools');
    expect(alphaFirst.subagents).toEqual([
      expect.objectContaining({
        agent: 'checker',
        sessionId: 'tree-1/toolu_alpha/toolu_check',
      }) as unknown,
    ]);

    // Each session's steps ran again and again while its subagents worked; each subagent got its
    // prompt once, with one drive, and each answer woke its parent once.
    const admin = new pg.Client({ connectionString: postgres.connectionString });
    await admin.connect();
    const rows = async (sql: string) =>
      (await admin.query<{ session: string; what: string }>(sql)).rows.map(
        (row) => `${row.session} ${row.what}`,
      );
    const inboxes = await rows(
      `SELECT session_id AS session, input::json->>'type' AS what FROM agent_statechart.inbox
       WHERE session_id LIKE 'tree-1%' ORDER BY session_id, seq`,
    );
    const drives = await rows(
      `SELECT queue_partition_key AS session, workflow_uuid AS what FROM dbos.workflow_status
       WHERE queue_partition_key LIKE 'tree-1%' ORDER BY queue_partition_key, workflow_uuid`,
    );
    await admin.end();
    expect(inboxes).toEqual([
      'tree-1 UserInput',
      'tree-1/toolu_alpha UserInput',
      'tree-1/toolu_alpha/toolu_check UserInput',
      'tree-1/toolu_beta UserInput',
    ]);
    expect(drives).toEqual([
      'tree-1 session:tree-1:input:1',
      'tree-1 session:tree-1:task:toolu_alpha',
      'tree-1 session:tree-1:task:toolu_beta',
      'tree-1/toolu_alpha session:tree-1/toolu_alpha:input:1',
      'tree-1/toolu_alpha session:tree-1/toolu_alpha:task:toolu_check',
      'tree-1/toolu_alpha/toolu_check session:tree-1/toolu_alpha/toolu_check:input:1',
      'tree-1/toolu_beta session:tree-1/toolu_beta:input:1',
    ]);

    // Each subagent's session is linked to its parent, and says how its chart is made.
    const header = async (sessionId: string) =>
      (await worker.store.load(sessionId))?.header.metadata?.subagent;
    expect(await header('tree-1/toolu_beta')).toEqual({
      parentSessionId: 'tree-1',
      callId: 'toolu_beta',
      agent: 'researcher',
      depth: 1,
      mode: 'default',
      agentPath: ['researcher'],
      rootSessionId: 'tree-1',
    });
    expect(await header('tree-1/toolu_alpha/toolu_check')).toEqual({
      parentSessionId: 'tree-1/toolu_alpha',
      callId: 'toolu_check',
      agent: 'checker',
      depth: 2,
      mode: 'default',
      agentPath: ['researcher', 'checker'],
      rootSessionId: 'tree-1',
    });
    const stored = await worker.store.load('tree-1/toolu_alpha/toolu_check');
    expect(subagentLinkOf(stored?.header.metadata)?.depth).toBe(2);

    // Each agent had its own tools: the task tool one level down, and no further.
    const toolNames = (word: string) =>
      (bySystem(word)[0]?.body.tools ?? []).map((tool) => tool.name);
    expect(toolNames('lead')).toEqual(['look_up', 'deploy', 'task']);
    expect(toolNames('researcher')).toEqual(['look_up', 'task']);
    expect(toolNames('checker')).toEqual(['look_up']);
    expect(bySystem('researcher')).toHaveLength(3);
    expect(bySystem('checker')).toHaveLength(1);
    for (const request of model.requests) {
      expect(findTranscriptViolations(request.body.messages as Message[])).toEqual([]);
    }
    // The look-up the alpha researcher ran worked in the top session's workspace.
    expect(workspaces).toContain('tree-1');
    expect(workspaces.filter((id) => id.includes('/'))).toEqual([]);

    // Usage rolls up: each session counts its own calls and its subagents' tokens.
    const usage = async (sessionId: string) => (await worker.open(sessionId)).core.context.usage;
    const checker = await usage('tree-1/toolu_alpha/toolu_check');
    const alpha = await usage('tree-1/toolu_alpha');
    const beta = await usage('tree-1/toolu_beta');
    const lead = parent.core.context.usage;
    expect(checker).toMatchObject({ calls: 1, output_tokens: 10 });
    expect(alpha).toMatchObject({ calls: 2, output_tokens: 210 });
    expect(beta).toMatchObject({ calls: 1, output_tokens: 100 });
    expect(lead).toMatchObject({ calls: 2, output_tokens: 2310 });

    // Traced: each subagent's turns continue its parent's trace, under the task call's span,
    // whichever drive runs them (the span is kept in the subagent's header).
    const spans = exporter.getFinishedSpans();
    const of = (conversation: string, name: string) =>
      spans.filter(
        (span) =>
          span.attributes['gen_ai.conversation.id'] === conversation && span.name.startsWith(name),
      );
    const leadTrace = of('tree-1', 'chat')[0]!.spanContext().traceId;
    for (const [child, parentId] of [
      ['tree-1/toolu_alpha', 'tree-1'],
      ['tree-1/toolu_beta', 'tree-1'],
      ['tree-1/toolu_alpha/toolu_check', 'tree-1/toolu_alpha'],
    ] as const) {
      const kept = (await worker.store.load(child))?.header.metadata?.traceParent as {
        traceId: string;
        spanId: string;
      };
      expect(kept.traceId, child).toBe(leadTrace);
      const turns = of(child, 'invoke_agent');
      expect(turns.length, child).toBeGreaterThan(0);
      for (const turn of turns) {
        expect(turn.spanContext().traceId, child).toBe(leadTrace);
        expect(turn.parentSpanContext?.spanId, child).toBe(kept.spanId);
        expect(turn.attributes['gen_ai.agent.name'], child).toBe(
          child.endsWith('check') ? 'checker' : 'researcher',
        );
      }
      // The task call's span is the parent's own: its parent session's tracer opened it.
      const parentTask = spans.find((span) => span.spanContext().spanId === kept.spanId);
      if (parentTask !== undefined) {
        expect(parentTask.attributes['gen_ai.conversation.id']).toBe(parentId);
      }
    }
  });

  it('follows a turn and every subagent under it as one stream, each value tagged with its session', async () => {
    await worker.createSession('tree-2');
    const { workflowId } = await worker.send('tree-2', {
      type: 'UserInput',
      message: { role: 'user', content: 'tree: two topics' },
    });
    const values: TurnStreamValue[] = [];
    for await (const value of worker.followTurn(workflowId)) values.push(value);

    const alpha = 'tree-2/toolu_alpha';
    const check = 'tree-2/toolu_alpha/toolu_check';
    expect(new Set(values.map((value) => value.sessionId))).toEqual(
      new Set(['tree-2', alpha, 'tree-2/toolu_beta', check]),
    );
    for (const { sessionId, subagent } of values) {
      if (sessionId === 'tree-2') expect(subagent).toBeUndefined();
      else expect(subagent?.agent).toBe(sessionId === check ? 'checker' : 'researcher');
    }
    expect(values.find((value) => value.sessionId === check)?.subagent).toMatchObject({
      parentSessionId: alpha,
      callId: 'toolu_check',
      depth: 2,
      agentPath: ['researcher', 'checker'],
    });
    const said = (sessionId: string) =>
      values
        .flatMap(({ sessionId: id, value }) =>
          id === sessionId && value.type === 'text' ? [value.text] : [],
        )
        .join('');
    expect(said(check)).toBe('checked: alpha holds');
    expect(said(alpha)).toContain('alpha: researched');
    expect(said('tree-2')).toContain('Done:');
    // Each drive followed streamed to its end: the parent's first, the drives its subagents'
    // answers woke, and each subagent's own.
    const drives = new Set(values.map((value) => value.workflowId));
    const idles = values.filter((value) => value.value.type === 'idle');
    expect(idles.map((value) => value.workflowId).sort()).toEqual([...drives].sort());
    expect(drives.has(workflowId)).toBe(true);
    expect(drives.has('session:tree-2:task:toolu_alpha')).toBe(true);
    // The last is the parent at rest with no subagent at work: the turn is over.
    const last = values.at(-1)!;
    expect(last).toMatchObject({
      sessionId: 'tree-2',
      value: { type: 'idle', state: 'WaitingForUserInput' },
    });
    expect(last.value.type === 'idle' && last.value.subagents).toBe(undefined);
  });

  it('passes an interrupt of the parent on to its subagent, which stops', async () => {
    const { result } = await start('halt-1', 'halt: research until told');
    expect(result.subagents?.map((running) => running.sessionId)).toEqual(['halt-1/toolu_forever']);
    const child = 'halt-1/toolu_forever';
    // The subagent is at work: it has called its model twice at least.
    await expect
      .poll(
        () =>
          bySystem('researcher').filter((r) =>
            textOf(r.body.messages[0] as Message).includes('forever'),
          ).length,
      )
      .toBeGreaterThanOrEqual(2);

    const { workflowId } = await worker.send('halt-1', { type: 'Interrupt' });
    const interrupted = await worker.result(workflowId);
    expect(interrupted).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    const parent = await worker.open('halt-1');
    const results = parent.core.context.messages.find(
      (message) => message.role === 'user' && textOf(message).includes('interrupted'),
    );
    expect(results).toBeDefined();

    // The subagent took the interrupt from its inbox and rests, its model no longer called.
    await expect
      .poll(async () => {
        const session = await worker.open(child);
        return session.resume === undefined ? session.core.state : 'busy';
      })
      .toBe('WaitingForUserInput');
    const entries = await worker.store.entries(child);
    expect(
      entries.filter((entry) => entry.kind === 'event' && entry.data.type === 'Interrupt'),
    ).toHaveLength(1);
    const calls = (await worker.open(child)).core.context.usage.calls;
    expect(calls).toBeLessThan(AGENTS.researcher.maxTurns);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await worker.open(child)).core.context.usage.calls).toBe(calls);
  });

  it('rests a subagent waiting for an approval; the approval sent to its session lets the parent go on', async () => {
    const { result } = await start('ship-1', 'ship: ship the finding');
    const [shipper] = result.subagents ?? [];
    expect(shipper).toMatchObject({ agent: 'shipper', sessionId: 'ship-1/toolu_ship' });

    // The subagent's own drive rests waiting for its approval; its parent's waits for it.
    const waiting = await worker.result(shipper!.workflowId);
    expect(waiting).toMatchObject({
      state: 'ExecutingTools',
      awaitingApproval: [expect.objectContaining({ id: 'toolu_deploy', name: 'deploy' })],
    });
    await worker.send(shipper!.sessionId, {
      type: 'ToolApproval',
      callId: 'toolu_deploy',
      decision: 'allow',
    });
    const woken = await worker.result(shipper!.wakeWorkflowId);
    expect(woken.state).toBe('WaitingForUserInput');
    const parent = await worker.open('ship-1');
    const toolResult = parent.core.context.messages[2];
    expect(textOf(toolResult)).toContain('shipped');
    expect(textOf(toolResult)).toContain('deployed beta');
  });

  it("follows a subagent's approval through the turn's stream: the drive the approval starts is followed too", async () => {
    await worker.createSession('ship-3');
    const { workflowId } = await worker.send('ship-3', {
      type: 'UserInput',
      message: { role: 'user', content: 'ship: ship the finding' },
    });
    const values: TurnStreamValue[] = [];
    for await (const value of worker.followTurn(workflowId)) {
      values.push(value);
      if (value.value.type === 'approvalRequest') {
        await worker.send(value.sessionId, {
          type: 'ToolApproval',
          callId: value.value.call.id,
          decision: 'allow',
        });
      }
    }
    const asked = values.filter((value) => value.value.type === 'approvalRequest');
    expect(asked).toEqual([
      expect.objectContaining({
        sessionId: 'ship-3/toolu_ship',
        subagent: expect.objectContaining({ agent: 'shipper', callId: 'toolu_ship' }) as unknown,
      }),
    ]);
    // The approval's drive of the subagent was followed: its deploy ran and it answered.
    const ends = values.filter(
      (value) => value.sessionId === 'ship-3/toolu_ship' && value.value.type === 'toolEnd',
    );
    expect(ends).toHaveLength(1);
    expect(values.at(-1)).toMatchObject({
      sessionId: 'ship-3',
      value: { type: 'idle', state: 'WaitingForUserInput' },
    });
    const parent = await worker.open('ship-3');
    expect(textOf(parent.core.context.messages[2])).toContain('deployed beta');
  });

  it("answers a task with the error its subagent's drive failed on, and the parent's turn goes on", async () => {
    const { result } = await start('ship-2', 'ship: ship the finding');
    const [shipper] = result.subagents ?? [];
    const waiting = await worker.result(shipper!.workflowId);
    expect(waiting.awaitingApproval).toHaveLength(1);
    // The subagent's stored state is damaged while it waits: its next drive cannot open it.
    const db = new pg.Client({ connectionString: postgres.connectionString });
    await db.connect();
    try {
      const { rowCount } = await db.query(
        `UPDATE agent_statechart.entries e SET data = '{"type":"UserInput"}'
           FROM agent_statechart.sessions s
          WHERE e.session_id = $1 AND s.session_id = e.session_id AND e.kind = 'event'
            AND e.seq > coalesce(s.checkpoint_seq, 0)`,
        [shipper!.sessionId],
      );
      expect(rowCount).toBeGreaterThan(0);
    } finally {
      await db.end();
    }
    const approved = await worker.send(shipper!.sessionId, {
      type: 'ToolApproval',
      callId: 'toolu_deploy',
      decision: 'allow',
    });
    await expect(worker.result(approved.workflowId)).rejects.toThrow();

    // The parent took the failure as the task's result, and its model went on with it.
    await expect
      .poll(async () => {
        const session = await worker.open('ship-2');
        return session.resume === undefined ? session.core.state : 'busy';
      })
      .toBe('WaitingForUserInput');
    const parent = await worker.open('ship-2');
    const { messages } = parent.core.context;
    expect(findTranscriptViolations(messages)).toEqual([]);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(messages[2]).toMatchObject({
      content: [{ type: 'tool_result', tool_use_id: 'toolu_ship', is_error: true }],
    });
    expect(textOf(messages[2])).toContain("subagent 'shipper' failed: session 'ship-2/toolu_ship'");
    expect(textOf(messages[3])).toContain("subagent 'shipper' failed");
    // Told once: the failure's answer is in the parent's inbox under one key.
    const answers = (await worker.store.entries('ship-2')).filter(
      (entry) => entry.kind === 'event' && entry.data.type === 'ToolCompleted',
    );
    expect(answers).toHaveLength(1);
  });
});
