/**
 * A DBOS worker in this process on a real PostgreSQL, driving sessions through what a turn can
 * carry besides text: the tools of an MCP server (the stdio test server), a tool answering with
 * an image, a turn that ends with a structured answer, and questions the model puts to the user
 * (`ask_user`), answered through another client, the caller's hooks run as steps, and compaction
 * (the summary call a step like a model call). One worker for the file: DBOS is one per process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import {
  connectSessionClient,
  type DriveStreamValue,
  type SessionWorker,
  startSessionWorker,
} from '../../src/dbos/index.js';
import {
  createToolRegistry,
  defineTool,
  type ImageBlock,
  type Message,
  SUMMARY_HEADING,
  toolContent,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { asksForSummary, textOf } from '../support/compactionRequests.js';
import { testLlmClient } from '../support/llmTransport.js';
import { stdioServerCommand } from '../support/mcp/startMcpHttpServer.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';

const installation = inject('postgresInstallation');

/** A 1×1 PNG. */
const pngBlock: ImageBlock = {
  type: 'image',
  source: {
    type: 'base64',
    media_type: 'image/png',
    data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  },
};

const screenshot = defineTool({
  name: 'screenshot',
  description: 'Take a screenshot',
  input: z.object({}),
  mutating: false,
  execute: () => toolContent({ type: 'text', text: 'the page' }, pngBlock),
});

const colourQuestion = {
  header: 'Colour',
  question: 'Which colour should the button be?',
  options: [{ label: 'red' }, { label: 'blue', description: 'the brand colour' }],
};

/** Each session's model, by the first words of its input; one turn per request it makes. */
const SCRIPTS: Record<string, ScriptedTurn[]> = {
  mcp: [
    reply([{ type: 'tool_use', name: 'mcp__t__lookup', input: { key: 'k' } }]),
    reply([{ type: 'tool_use', name: 'mcp__t__add_tool', input: { name: 'greet' } }]),
    reply([{ type: 'tool_use', name: 'mcp__t__greet', input: {} }]),
    reply('All done.'),
  ],
  look: [reply([{ type: 'tool_use', name: 'screenshot', input: {} }]), reply('A dot.')],
  answer: [reply([{ type: 'tool_use', name: 'final_answer', input: { verdict: 'approve' } }])],
  hook: [
    reply([
      { type: 'tool_use', id: 'toolu_hooked', name: 'screenshot', input: {} },
      { type: 'tool_use', id: 'toolu_noted', name: 'screenshot', input: {} },
    ]),
    reply('One of two.'),
  ],
  stop: [reply('Done, I think.'), reply('Checked again: done.')],
  ask: [
    reply([
      { type: 'text', text: 'One thing first.' },
      { type: 'tool_use', name: 'ask_user', input: { questions: [colourQuestion] } },
    ]),
    reply('Blue it is.'),
  ],
  // The second answer says the transcript nears the context window: the next request compacts.
  compact: [
    reply('First.'),
    reply('Second.', { usage: { input_tokens: 170_000 } }),
    reply('Third.'),
  ],
  manual: [reply('One.'), reply('Two.')],
};

/**
 * The session a request is of: the first word of its first message, or once compacted, the one
 * the summary names (the scripted summaries do).
 */
function sessionOf(messages: readonly Pick<Message, 'content'>[]): string {
  const first = messages[0]?.content;
  if (typeof first === 'string') return first.split(' ')[0]!;
  return /SUMMARY of (\w+)/.exec(JSON.stringify(first ?? ''))?.[1] ?? '';
}

describe.skipIf(installation === null)('a session worker', () => {
  let postgres: PostgresServer;
  let model: MessagesApiServer;
  let worker: SessionWorker;
  let directory: string;
  const served = new Map<string, number>();
  /** The sessions the stop hook was told it ran for. */
  const stoppedIn: (string | undefined)[] = [];
  /** What the preCompact hook was asked, with the session it ran for. */
  const compactAsked: unknown[] = [];

  /** The requests of one session, in order. */
  const requestsOf = (session: string) =>
    model.requests.filter((request) => sessionOf(request.body.messages) === session);

  /** Runs one input to the end of its drive; what the drive streamed. */
  async function drive(sessionId: string, event: Parameters<SessionWorker['send']>[1]) {
    await worker.createSession(sessionId);
    return driveAgain(sessionId, event);
  }

  /** Runs one more input of a session to the end of its drive. */
  async function driveAgain(sessionId: string, event: Parameters<SessionWorker['send']>[1]) {
    const { workflowId } = await worker.send(sessionId, event);
    const values: DriveStreamValue[] = [];
    for await (const value of worker.events(workflowId)) values.push(value);
    return { values, result: await worker.result(workflowId) };
  }

  /** Runs `contents` as a session's inputs, one drive each; what the last drive streamed. */
  async function driveInputs(sessionId: string, contents: string[]) {
    let driven: Awaited<ReturnType<typeof driveAgain>> | undefined;
    for (const [index, content] of contents.entries()) {
      const event = { type: 'UserInput', message: { role: 'user', content } } as const;
      driven = await (index === 0 ? drive(sessionId, event) : driveAgain(sessionId, event));
    }
    return driven!;
  }

  /**
   * What a compaction of `sessionId` that summarised three messages streamed (its start and its
   * end, with the scripted summary of the session), and what the preCompact hook was asked.
   */
  function expectCompacted(
    values: DriveStreamValue[],
    sessionId: string,
    trigger: 'auto' | 'manual',
    { kept, instructions }: { kept: number; instructions: string[] },
  ): void {
    const session = sessionId.split('-')[0]!;
    expect(values).toContainEqual({ type: 'compacting', trigger });
    expect(values).toContainEqual({
      type: 'compacted',
      trigger,
      summary: `SUMMARY of ${session}: the steps so far.`,
      summarised: 3,
      kept,
    });
    expect(compactAsked).toContainEqual({ sessionId, trigger, summarised: 3, instructions });
  }

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'session-worker-'));
    model = await startMessagesApiServer({
      script: (request) => {
        const session = sessionOf(request.messages);
        if (asksForSummary(request)) return reply(`SUMMARY of ${session}: the steps so far.`);
        const turn = served.get(session) ?? 0;
        served.set(session, turn + 1);
        return SCRIPTS[session]?.[turn] ?? reply('(no more script)');
      },
    });
    postgres = await startPostgres({ installation: installation!, database: 'session_worker' });
    const tools = createToolRegistry([screenshot]);
    worker = await startSessionWorker({
      connectionString: postgres.connectionString,
      agent: { tools: tools.specs(), permissions: { mode: 'bypassPermissions' }, askUser: true },
      tools,
      workspace: directory,
      llm: testLlmClient({ baseURL: model.baseURL, apiKey: 'test-key' }),
      mcpServers: { t: { ...stdioServerCommand(), env: { MCP_TEST_LOG: join(directory, 'log') } } },
      // Only the calls of the `hook` session are the hooks' business.
      hooks: {
        preToolUse: ({ call }) =>
          call.id === 'toolu_hooked'
            ? { decision: 'deny', reason: 'not on this worker' }
            : undefined,
        postToolUse: ({ call }) =>
          call.id === 'toolu_noted' ? { context: 'seen by the hook' } : undefined,
        // Prompts of the `blocked` session never reach the model; `stop` turns go on once.
        userPromptSubmit: ({ text }) =>
          text.startsWith('blocked')
            ? { decision: 'block', reason: 'blocked sessions send nothing' }
            : undefined,
        preCompact: (input, { sessionId }) => {
          compactAsked.push({ sessionId, ...input });
          return input.trigger === 'manual' ? { instructions: 'Keep the word HERON.' } : undefined;
        },
        stop: ({ text }, { sessionId }) => {
          stoppedIn.push(sessionId);
          return text === 'Done, I think.'
            ? { decision: 'continue', reason: 'check again' }
            : undefined;
        },
      },
    });
  });

  it('runs the tool hooks as steps of the drive: a denial the model reads, a note after a result', async () => {
    const { result } = await drive('hook-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'hook two screenshots' },
    });
    expect(result).toMatchObject({ state: 'WaitingForUserInput' });
    const [, second] = requestsOf('hook');
    expect(second?.body.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_hooked',
        content: 'permission denied by the preToolUse hook: not on this worker',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_noted',
        content: [
          { type: 'text', text: 'the page' },
          pngBlock,
          { type: 'text', text: '[postToolUse hook] seen by the hook' },
        ],
      },
    ]);
  });

  it('runs the userPromptSubmit hook as a step: a blocked prompt is streamed back, the model never called', async () => {
    const prompt = { role: 'user' as const, content: 'blocked: deploy everything' };
    const { values, result } = await drive('blocked-1', { type: 'UserInput', message: prompt });
    expect(result).toMatchObject({ state: 'WaitingForUserInput' });
    expect(values).toContainEqual({
      type: 'promptDropped',
      prompt,
      reason: 'the userPromptSubmit hook blocked it: blocked sessions send nothing',
    });
    expect(requestsOf('blocked')).toEqual([]);
  });

  it('runs the stop hook as a step: the turn goes on once with its reason', async () => {
    const { result } = await drive('stop-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'stop when done' },
    });
    expect(result).toMatchObject({ state: 'WaitingForUserInput' });
    const [, second, third] = requestsOf('stop');
    expect(third).toBeUndefined();
    expect(stoppedIn).toContain('stop-1');
    expect(second?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: '[stop hook] check again',
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await postgres?.stop();
    await model?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("drives a session through an MCP server's tools, and offers a tool it added on the next request", async () => {
    const { values, result } = await drive('mcp-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'mcp look up k, then add a greeting and use it' },
    });
    expect(result).toMatchObject({ state: 'WaitingForUserInput' });
    const ended = values.flatMap((value) =>
      value.type === 'toolEnd' ? [[value.call.name, value.outcome.status]] : [],
    );
    expect(ended).toEqual([
      ['mcp__t__lookup', 'success'],
      ['mcp__t__add_tool', 'success'],
      ['mcp__t__greet', 'success'],
    ]);
    const names = (index: number) =>
      (requestsOf('mcp')[index]?.body.tools ?? []).map((tool) => tool.name);
    expect(names(0)).toEqual(expect.arrayContaining(['screenshot', 'mcp__t__lookup']));
    expect(names(1)).not.toContain('mcp__t__greet');
    expect(names(2)).toContain('mcp__t__greet');
    const session = await worker.open('mcp-1');
    expect(JSON.stringify(session.core.context.messages[2]?.content)).toContain('value of k');
  });

  it("shows the model a tool's image as an image block", async () => {
    await drive('look-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'look at the page' },
    });
    const [, second] = requestsOf('look');
    expect(second?.body.messages.at(-1)?.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        content: [{ type: 'text', text: 'the page' }, pngBlock],
      }),
    ]);
  });

  it('ends a turn with its structured answer, streamed and stored', async () => {
    const schema = {
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['approve', 'reject'] } },
      required: ['verdict'],
    };
    const { values } = await drive('answer-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'answer whether to approve the change' },
      output: { schema },
    });
    expect(values).toContainEqual({ type: 'output', value: { verdict: 'approve' } });
    const [first] = requestsOf('answer');
    expect(first?.body.tools?.map((tool) => tool.name)).toContain('final_answer');
    const session = await worker.open('answer-1');
    expect(session.core.context.output?.answer).toEqual({ value: { verdict: 'approve' } });
  });

  it("streams the model's questions, rests with them open, and goes on with the answer another client sends", async () => {
    const asked = await drive('ask-1', {
      type: 'UserInput',
      message: { role: 'user', content: 'ask which colour the button should be' },
    });
    expect(requestsOf('ask')[0]?.body.tools?.map((tool) => tool.name)).toContain('ask_user');
    const question = asked.values.find((value) => value.type === 'question');
    expect(question).toEqual({
      type: 'question',
      callId: expect.any(String) as unknown,
      questions: [colourQuestion],
    });
    const callId = (question as Extract<DriveStreamValue, { type: 'question' }>).callId;
    // The chart answers the call itself: no tool runs, and the drive rests waiting.
    expect(asked.values.map((value) => value.type)).not.toContain('toolStart');
    const open = { callId, questions: [colourQuestion] };
    expect(asked.result).toEqual({
      state: 'ExecutingTools',
      awaitingApproval: [],
      awaitingAnswer: [open],
    });
    expect(asked.values.at(-1)).toEqual({ type: 'idle', ...asked.result });

    // Any process may answer: a client of its own, not the worker that asked.
    const client = await connectSessionClient({ connectionString: postgres.connectionString });
    const sent = await client
      .send('ask-1', { type: 'UserAnswer', callId, answers: ['blue'] })
      .finally(() => client.close());
    const values: DriveStreamValue[] = [];
    for await (const value of worker.events(sent.workflowId)) values.push(value);
    expect(values).toContainEqual({
      type: 'toolEnd',
      call: expect.objectContaining({ id: callId, name: 'ask_user' }) as unknown,
      outcome: expect.objectContaining({ status: 'success' }) as unknown,
    });
    expect(values.at(-1)).toEqual({
      type: 'idle',
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    const [, second] = requestsOf('ask');
    expect(second?.body.messages.at(-1)?.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: callId,
        content: 'The user answered:\n[Colour] Which colour should the button be?\n→ blue',
      }),
    ]);
    const session = await worker.open('ask-1');
    expect(session.core.context.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Blue it is.' }],
    });
  });
  it('compacts a session nearing the context window as a step of the drive: the summary call made like a model call, none of it streamed as text', async () => {
    const { values, result } = await driveInputs('compact-1', [
      'compact step 1',
      'compact step 2',
      'compact step 3',
    ]);
    expect(result.state).toBe('WaitingForUserInput');
    expectCompacted(values, 'compact-1', 'auto', { kept: 2, instructions: [] });
    // One model call of the turn is announced, and only its text is streamed.
    expect(values.filter((value) => value.type === 'llmStart')).toHaveLength(1);
    const text = values.flatMap((value) => (value.type === 'text' ? [value.text] : []));
    expect(text.join('')).toBe('Third.');

    const [, , summary, after] = requestsOf('compact');
    expect(asksForSummary(summary!.body)).toBe(true);
    expect(summary!.body.messages).toHaveLength(3);
    expect(after!.body.messages).toHaveLength(3);
    expect(textOf(after!.body.messages[0]?.content)).toBe(
      `${SUMMARY_HEADING}\n\nSUMMARY of compact: the steps so far.`,
    );
    const session = await worker.open('compact-1');
    expect(session.core.context.window.compactions).toBe(1);
    expect(session.core.context.messages).toHaveLength(4);
  });

  it('compacts a resting session on a Compact, with the instructions sent and the hook’s', async () => {
    await driveInputs('manual-1', ['manual step 1', 'manual step 2']);
    const { values, result } = await driveAgain('manual-1', {
      type: 'Compact',
      instructions: 'Keep the step numbers.',
    });
    expect(result).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    expectCompacted(values, 'manual-1', 'manual', {
      kept: 1,
      instructions: ['Keep the step numbers.'],
    });
    const summary = requestsOf('manual').at(-1)!.body;
    expect(asksForSummary(summary)).toBe(true);
    expect((summary as Record<string, unknown>).thinking).toBeUndefined();
    const prompt = textOf(summary.messages.at(-1)?.content);
    expect(prompt).toContain('Also: Keep the step numbers.');
    expect(prompt).toContain('Also: Keep the word HERON.');
    const session = await worker.open('manual-1');
    expect(session.core.context.messages).toHaveLength(2);
    expect(textOf(session.core.context.messages[0]?.content)).toBe(
      `${SUMMARY_HEADING}\n\nSUMMARY of manual: the steps so far.`,
    );
  });
});
