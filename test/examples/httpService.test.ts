/**
 * The HTTP service example, end to end: real agents behind a real HTTP server, talking to the
 * local Messages API server, watched through Server-Sent Events, their sessions in a real SQLite
 * file — which a new process of the service goes on from after the first one is killed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentService,
  type AgentServiceOptions,
  createAgentService,
} from '../../examples/http-service/createAgentService.js';
import { loadHooks } from '../../examples/http-service/hooksModule.js';
import { createSqliteSessionStore, type SessionStore } from '../../src/index.js';
import {
  type MessagesApiServer,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
} from '../../src/testing/index.js';

interface SseEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

/** Reads an SSE response frame by frame; `next(type)` waits for the next event of that type. */
class EventReader {
  readonly events: SseEvent[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #cursor = 0;
  ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  async next(type: string, timeoutMs = 10_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.#cursor < this.events.length) {
        const event = this.events[this.#cursor++];
        if (event?.type === type) return event;
      }
      if (this.ended) throw new Error(`the stream ended before a '${type}' event`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no '${type}' event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#read(),
        new Promise((resolve) => (timer = setTimeout(resolve, left))),
      ]).finally(() => clearTimeout(timer));
    }
  }

  #reading: Promise<void> | undefined;

  #read(): Promise<void> {
    // One read at a time: a read left pending by a timeout is awaited again, not doubled.
    this.#reading ??= this.#readOnce().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #readOnce(): Promise<void> {
    const { done, value } = await this.#reader.read();
    if (done) {
      this.ended = true;
      return;
    }
    this.#buffer += this.#decoder.decode(value, { stream: true });
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) !== -1) {
      const frame = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const field = (name: string) =>
        frame
          .split('\n')
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      this.events.push({
        id: Number(field('id')),
        type: field('event') ?? 'message',
        data: JSON.parse(field('data') ?? '{}') as Record<string, unknown>,
      });
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

let api: MessagesApiServer;
let service: AgentService;
let baseUrl: string;
let workspaceRoot: string;
let store: SessionStore;

async function post(path: string, body: unknown = {}): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function events(agentId: string): Promise<EventReader> {
  const response = await fetch(`${baseUrl}/agents/${agentId}/events`);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  if (response.body === null) throw new Error('no event stream');
  return new EventReader(response.body);
}

/**
 * Runs `test` against a service of its own, with its own model `script` and `options` (hooks),
 * on the same store and workspace root; both are stopped after, whatever happened.
 */
async function withService(
  script: ScriptedTurn[],
  options: Partial<AgentServiceOptions>,
  test: (model: MessagesApiServer) => Promise<void>,
): Promise<void> {
  const model = await startMessagesApiServer({ script });
  const own = createAgentService({
    workspaceRoot,
    store,
    anthropic: { baseURL: model.baseURL, apiKey: 'test-key' },
    agentOptions: { autoCommit: false },
    ...options,
  });
  const serviceUrl = baseUrl;
  try {
    baseUrl = await own.listen();
    await test(model);
  } finally {
    baseUrl = serviceUrl;
    await own.close();
    await model.close();
  }
}

beforeEach(async () => {
  workspaceRoot = await mkdtemp(join(tmpdir(), 'http-service-'));
  api = await startMessagesApiServer({
    script: [
      // Turn 1: the model asks to write a file (a mutating tool: it waits for approval) …
      reply([
        { type: 'text', text: 'I will write it.' },
        { type: 'tool_use', name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } },
      ]),
      // … then sees the result and ends the turn.
      reply('Done: hello.txt says hi.'),
      // Turn 2: a slow answer, interrupted halfway.
      reply('Once upon a time, in a land far away, there lived a very patient agent.', {
        eventDelayMs: 150,
        textChunkSize: 4,
      }),
    ],
  });
  store = createSqliteSessionStore({ path: join(workspaceRoot, 'sessions.db') });
  service = createAgentService({
    workspaceRoot,
    store,
    anthropic: { baseURL: api.baseURL, apiKey: 'test-key' },
    agentOptions: { autoCommit: false, retryDelayScale: 0.01 },
  });
  baseUrl = await service.listen();
});

afterEach(async () => {
  await service.close();
  await store.close();
  await api.close();
  await rm(workspaceRoot, { recursive: true, force: true });
});

describe('the HTTP service example', () => {
  it('creates an agent, streams a turn, takes an approval, interrupts and shuts down', async () => {
    const created = await post('/agents', { permissionMode: 'default' });
    expect(created.status).toBe(201);
    const { id, workspace } = (await created.json()) as { id: string; workspace: string };
    expect(workspace).toBe(join(workspaceRoot, id));
    const stream = await events(id);

    // A turn with a tool call that needs approval in the default permission mode.
    expect((await post(`/agents/${id}/messages`, { text: 'Write hello.txt' })).status).toBe(202);
    expect((await stream.next('state')).data).toEqual({
      state: 'CallingLlm',
      previous: 'WaitingForUserInput',
    });
    const request = await stream.next('approvalRequest');
    const call = request.data.call as { id: string; name: string };
    expect(call.name).toBe('write_file');
    const status = (await (await fetch(`${baseUrl}/agents/${id}`)).json()) as {
      state: string;
      pendingApprovals: string[];
    };
    expect(status).toMatchObject({ state: 'ExecutingTools', pendingApprovals: [call.id] });

    expect((await post(`/agents/${id}/approvals/${call.id}`, { decision: 'allow' })).status).toBe(
      202,
    );
    const toolEnd = await stream.next('toolEnd');
    expect(toolEnd.data.outcome).toMatchObject({ status: 'success' });
    await stream.next('turnEnd');
    expect(await readFile(join(workspace, 'hello.txt'), 'utf8')).toBe('hi\n');
    const text = stream.events
      .filter((event) => event.type === 'text')
      .map((event) => event.data.text)
      .join('');
    expect(text).toBe('I will write it.Done: hello.txt says hi.');
    // Each model call of the turn starts and ends on the stream, so a client knows its text is kept.
    const calls = (events: SseEvent[]) =>
      events
        .filter((event) => event.type === 'llmStart' || event.type === 'llmEnd')
        .map((event) => (event.type === 'llmEnd' ? String(event.data.status) : event.type));
    expect(calls(stream.events)).toEqual(['llmStart', 'completed', 'llmStart', 'completed']);

    // A slow turn, interrupted once text has started to arrive.
    await post(`/agents/${id}/messages`, { text: 'Tell me a story' });
    await stream.next('text');
    expect((await post(`/agents/${id}/interrupt`)).status).toBe(202);
    await stream.next('turnEnd');
    // The state change is read off the transition, the call's end off the actions it emitted.
    expect(stream.events.slice(-3)).toMatchObject([
      { type: 'state', data: { state: 'WaitingForUserInput', previous: 'CallingLlm' } },
      { type: 'llmEnd', data: { status: 'interrupted' } },
      { type: 'turnEnd' },
    ]);
    expect(calls(stream.events).slice(4)).toEqual(['llmStart', 'interrupted']);
    expect(api.requests).toHaveLength(3);

    // Delete: the stream says so and ends; the agent is gone, from the store too.
    const deleted = await fetch(`${baseUrl}/agents/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await stream.next('closed')).data).toEqual({ state: 'ShuttingDown' });
    await expect(stream.next('anything')).rejects.toThrow(/stream ended/);
    expect((await fetch(`${baseUrl}/agents/${id}`)).status).toBe(404);
    expect(await store.list()).toEqual([]);
  });

  it('hosts several agents, each in its own workspace, and replays events on reconnect', async () => {
    const ids = await Promise.all(
      [1, 2].map(async () => ((await (await post('/agents')).json()) as { id: string }).id),
    );
    expect(new Set(ids).size).toBe(2);
    const [first] = ids;
    if (first === undefined) throw new Error('no agent');
    await post(`/agents/${first}/messages`, { text: 'Write hello.txt' });
    const live = await events(first);
    const request = await live.next('approvalRequest');
    await live.cancel();
    // A client that reconnects with Last-Event-ID gets only what it missed.
    const resumed = await fetch(`${baseUrl}/agents/${first}/events`, {
      headers: { 'last-event-id': String(request.id) },
    });
    if (resumed.body === null) throw new Error('no event stream');
    const reader = new EventReader(resumed.body);
    const callId = (request.data.call as { id: string }).id;
    await post(`/agents/${first}/approvals/${callId}`, {
      decision: 'deny',
      reason: 'write notes.md instead',
    });
    const end = await reader.next('toolEnd');
    expect(end.id).toBeGreaterThan(request.id);
    expect(end.data.outcome).toMatchObject({
      status: 'error',
      error: {
        message: expect.stringMatching(/refused this \w+ call: write notes\.md instead$/) as string,
      },
    });
    expect(reader.events.every((event) => event.id > request.id)).toBe(true);
    await reader.cancel();
  });

  it('streams the model’s questions and takes their answers, refusing answers that do not fit', async () => {
    const model = await startMessagesApiServer({
      script: [
        reply([
          {
            type: 'tool_use',
            id: 'toolu_plan',
            name: 'ask_user',
            input: {
              questions: [
                {
                  header: 'Database',
                  question: 'Which database?',
                  options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }],
                },
                {
                  header: 'Features',
                  question: 'Which features first?',
                  options: [{ label: 'Search' }, { label: 'Export' }],
                  multiSelect: true,
                },
              ],
            },
          },
        ]),
        reply('SQLite, with search and export.'),
      ],
    });
    const asking = createAgentService({
      workspaceRoot,
      store,
      anthropic: { baseURL: model.baseURL, apiKey: 'test-key' },
      agentOptions: { autoCommit: false },
    });
    const serviceUrl = baseUrl;
    try {
      baseUrl = await asking.listen();
      const { id } = (await (await post('/agents')).json()) as { id: string };
      const stream = await events(id);
      await post(`/agents/${id}/messages`, { text: 'Plan the service' });
      const asked = await stream.next('question');
      expect(asked.data).toMatchObject({
        callId: 'toolu_plan',
        questions: [{ header: 'Database' }, { header: 'Features', multiSelect: true }],
      });
      const status = (await (await fetch(`${baseUrl}/agents/${id}`)).json()) as Record<
        string,
        unknown
      >;
      expect(status).toMatchObject({
        state: 'ExecutingTools',
        pendingApprovals: [],
        pendingQuestions: [asked.data],
      });

      const mistakes: [Response, number, RegExp][] = [
        [
          await post(`/agents/${id}/answers/toolu_plan`, { answers: ['SQLite'] }),
          400,
          /with 2 answers, one per question in order/,
        ],
        [
          await post(`/agents/${id}/answers/toolu_plan`, {
            answers: [['SQLite', 'PostgreSQL'], []],
          }),
          400,
          /picks several choices, but question 1 takes one/,
        ],
        [await post(`/agents/${id}/answers/toolu_plan`, { answers: 'SQLite' }), 400, /"answers"/],
        [
          await post(`/agents/${id}/answers/toolu_other`, { answers: ['a', 'b'] }),
          409,
          /not waiting/,
        ],
      ];
      for (const [response, code, message] of mistakes) {
        expect(response.status).toBe(code);
        expect(((await response.json()) as { error: string }).error).toMatch(message);
      }

      const answered = await post(`/agents/${id}/answers/toolu_plan`, {
        answers: ['SQLite', ['Search', 'Export']],
      });
      expect(answered.status).toBe(202);
      expect((await stream.next('toolEnd')).data).toMatchObject({
        call: { id: 'toolu_plan', name: 'ask_user' },
        outcome: { status: 'success' },
      });
      await stream.next('turnEnd');
      await stream.cancel();
      expect(model.requests[1]?.body.messages.at(-1)?.content).toEqual([
        expect.objectContaining({
          tool_use_id: 'toolu_plan',
          content:
            'The user answered:\n[Database] Which database?\n→ SQLite\n[Features] Which features first?\n→ Search, Export',
        }),
      ]);
    } finally {
      baseUrl = serviceUrl;
      await asking.close();
      await model.close();
    }
  });

  it('sends a prompt the userPromptSubmit hook blocks back as a promptDropped event, and never calls the model with it', async () => {
    const asked: string[] = [];
    await withService(
      [reply('Hello.')],
      {
        hooks: {
          userPromptSubmit: ({ text }) => {
            asked.push(text);
            return text.includes('sk-ant-')
              ? { decision: 'block', reason: 'the prompt contains an API key' }
              : undefined;
          },
        },
      },
      async (model) => {
        const { id } = (await (await post('/agents')).json()) as { id: string };
        const stream = await events(id);
        const secret = 'Deploy with key sk-ant-0000';
        expect((await post(`/agents/${id}/messages`, { text: secret })).status).toBe(202);
        const dropped = await stream.next('promptDropped');
        expect(dropped.data).toEqual({
          prompt: { role: 'user', content: secret },
          reason: 'the userPromptSubmit hook blocked it: the prompt contains an API key',
        });
        // The blocked prompt ends its (empty) turn: the client knows the agent waits again.
        await stream.next('turnEnd');
        expect(model.requests).toEqual([]);
        expect(stream.events.map((event) => event.type)).not.toContain('llmStart');

        // The next prompt goes through, and the model's transcript holds only that one.
        await post(`/agents/${id}/messages`, { text: 'Say hello' });
        await stream.next('turnEnd');
        await stream.cancel();
        expect(asked).toEqual([secret, 'Say hello']);
        expect(model.requests).toHaveLength(1);
        expect(model.requests[0]?.body.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
        const status = (await (await fetch(`${baseUrl}/agents/${id}`)).json()) as {
          messages: number;
        };
        expect(status.messages).toBe(2);
      },
    );
  });

  it('has a turn go on once when the stop hook says so: the stream shows the second model call', async () => {
    const asked: { id: string; workspace: string; text: string }[] = [];
    await withService(
      [reply('Done, I think.'), reply('Checked again: done.')],
      {
        // A function of the agent: the hook knows whose turn it ends. It always asks for more;
        // the turn goes on once all the same.
        hooks: ({ id, workspace }) => ({
          stop: ({ text }) => {
            asked.push({ id, workspace, text });
            return { decision: 'continue', reason: 'check your work again' };
          },
        }),
        hookTimeoutMs: 5_000,
      },
      async (model) => {
        const { id, workspace } = (await (await post('/agents')).json()) as {
          id: string;
          workspace: string;
        };
        const stream = await events(id);
        await post(`/agents/${id}/messages`, { text: 'Fix the build' });
        // (A new agent's stream may open with a `turnEnd`: it waits for input.)
        await stream.next('llmStart');
        await stream.next('turnEnd');
        await stream.cancel();
        const calls = stream.events
          .filter((event) => event.type === 'llmStart' || event.type === 'llmEnd')
          .map((event) => (event.type === 'llmEnd' ? String(event.data.status) : event.type));
        expect(calls).toEqual(['llmStart', 'completed', 'llmStart', 'completed']);
        const text = stream.events
          .filter((event) => event.type === 'text')
          .map((event) => event.data.text)
          .join('');
        expect(text).toBe('Done, I think.Checked again: done.');
        expect(asked).toEqual([{ id, workspace, text: 'Done, I think.' }]);
        // The second call carries the hook's reason as the model's next instruction.
        expect(model.requests).toHaveLength(2);
        expect(model.requests[1]?.body.messages.slice(1)).toEqual([
          { role: 'assistant', content: [{ type: 'text', text: 'Done, I think.' }] },
          { role: 'user', content: '[stop hook] check your work again' },
        ]);
      },
    );
  });

  it('compacts an agent between turns on POST /compact: the outcome answered, the stream told, a turn refused', async () => {
    await withService(
      [
        reply('First answer.'),
        reply('Second answer.'),
        reply('The user asked two things, both answered.'),
        reply('A slow third answer, word by word.', { eventDelayMs: 100 }),
      ],
      {},
      async (model) => {
        const { id } = (await (await post('/agents')).json()) as { id: string };
        const stream = await events(id);
        for (const text of ['First question', 'Second question']) {
          await post(`/agents/${id}/messages`, { text });
          await stream.next('llmEnd');
          await stream.next('turnEnd');
        }
        const compacted = await post(`/agents/${id}/compact`, { instructions: 'Keep both.' });
        expect(compacted.status).toBe(200);
        expect(await compacted.json()).toEqual({
          status: 'compacted',
          summary: 'The user asked two things, both answered.',
          summarised: 3,
          kept: 1,
        });
        expect((await stream.next('compacting')).data).toEqual({ trigger: 'manual' });
        expect((await stream.next('compacted')).data).toMatchObject({ summarised: 3, kept: 1 });
        expect(JSON.stringify(model.requests[2]?.body.messages.at(-1))).toContain(
          'Also: Keep both.',
        );
        const status = (await (await fetch(`${baseUrl}/agents/${id}`)).json()) as {
          messages: number;
        };
        expect(status.messages).toBe(2);

        // During a turn it is refused, and says why.
        await post(`/agents/${id}/messages`, { text: 'Third question' });
        await stream.next('llmStart');
        const refused = await post(`/agents/${id}/compact`);
        expect(refused.status).toBe(409);
        expect(await refused.json()).toMatchObject({
          error: expect.stringContaining('between turns') as string,
        });
        await stream.cancel();
      },
    );
  });

  it('loads the hooks from the module AGENT_HOOKS names, and says what is wrong with one it cannot use', async () => {
    expect(await loadHooks(undefined)).toEqual({});
    const good = join(workspaceRoot, 'hooks.mjs');
    await writeFile(
      good,
      'export const hooks = { stop: () => undefined };\nexport const hookTimeoutMs = 5000;\n',
    );
    const loaded = await loadHooks(good);
    expect(Object.keys(loaded.hooks ?? {})).toEqual(['stop']);
    expect(loaded.hookTimeoutMs).toBe(5000);

    const empty = join(workspaceRoot, 'empty.mjs');
    await writeFile(empty, 'export const hook = {};\n');
    await expect(loadHooks(empty)).rejects.toThrow(
      /must export `hooks`, an object of hook functions/,
    );
    const slow = join(workspaceRoot, 'slow.mjs');
    await writeFile(slow, "export const hooks = {};\nexport const hookTimeoutMs = '1m';\n");
    await expect(loadHooks(slow)).rejects.toThrow(/`hookTimeoutMs`, if exported, must be a number/);
    await expect(loadHooks(join(workspaceRoot, 'missing.mjs'))).rejects.toThrow(
      /AGENT_HOOKS=.*missing\.mjs: the module could not be imported/,
    );
  });

  it('answers mistakes with a status and a message that says what to do', async () => {
    const { id } = (await (await post('/agents')).json()) as { id: string };
    const cases: [Response, number, RegExp][] = [
      [await post(`/agents/${id}/messages`, { text: '' }), 400, /non-empty text/],
      [await post(`/agents/${id}/approvals/toolu_x`, { decision: 'allow' }), 409, /not waiting/],
      [await post(`/agents/${id}/approvals/toolu_x`, { decision: 'maybe' }), 400, /allow/],
      [
        await post(`/agents/${id}/approvals/toolu_x`, { decision: 'allow', reason: 'ok' }),
        400,
        /"reason" goes with a deny/,
      ],
      [
        await post(`/agents/${id}/answers/toolu_x`, { answers: ['yes'] }),
        409,
        /not waiting for answers/,
      ],
      [await post('/agents', { permissionMode: 'yolo' }), 400, /permissionMode must be/],
      [await post('/agents/nope/interrupt'), 404, /no agent 'nope'/],
      [
        await fetch(`${baseUrl}/agents`, { method: 'POST', body: '{not json' }),
        400,
        /not valid JSON/,
      ],
    ];
    for (const [response, status, message] of cases) {
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
  });
});

/** `examples/http-service/main.ts` in a process of its own, as it is deployed. */
async function startServiceProcess(env: NodeJS.ProcessEnv) {
  const root = join(import.meta.dirname, '../..');
  // Node itself with tsx's loader (not the tsx command, which would run it in a grandchild that
  // outlives a SIGKILL of its parent).
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'examples/http-service/main.ts')],
    { cwd: root, env: { ...process.env, PORT: '0', ...env } },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\S+)/.exec(output)?.[1];
      if (found !== undefined) resolve(found);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`the service exited (${code}): ${output}`)));
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { url, child, exited, output: () => output };
}

describe('the HTTP service example, restarted', () => {
  it('loses no session when its process is killed: a new process goes on from the store, asks again for the pending approval and finishes the turn', async () => {
    const env = {
      WORKSPACE_ROOT: join(workspaceRoot, 'service'),
      ANTHROPIC_BASE_URL: api.baseURL,
      ANTHROPIC_API_KEY: 'test-key',
    };
    const first = await startServiceProcess(env);
    let current = first;
    try {
      baseUrl = first.url;
      const created = (await (await post('/agents', { permissionMode: 'default' })).json()) as {
        id: string;
        workspace: string;
      };
      const { id } = created;
      const stream = await events(id);
      await post(`/agents/${id}/messages`, { text: 'Write hello.txt' });
      const asked = await stream.next('approvalRequest');
      const callId = (asked.data.call as { id: string }).id;

      // A crash, not a shutdown: nothing is flushed, nothing is closed.
      first.child.kill('SIGKILL');
      expect((await first.exited)[1]).toBe('SIGKILL');
      await expect(stream.next('anything')).rejects.toThrow(/stream ended|terminated/);

      const second = await startServiceProcess(env);
      current = second;
      baseUrl = second.url;
      const status = (await (await fetch(`${baseUrl}/agents/${id}`)).json()) as Record<
        string,
        unknown
      >;
      expect(status).toEqual({
        id,
        state: 'ExecutingTools',
        messages: 2,
        pendingApprovals: [callId],
        pendingQuestions: [],
      });
      // The client reconnects where it was: the resumed session asks again, under a newer id.
      const resumed = await fetch(`${baseUrl}/agents/${id}/events`, {
        headers: { 'last-event-id': String(asked.id) },
      });
      if (resumed.body === null) throw new Error('no event stream');
      const reader = new EventReader(resumed.body);
      const askedAgain = await reader.next('approvalRequest');
      expect(askedAgain.id).toBeGreaterThan(asked.id);
      expect((askedAgain.data.call as { id: string }).id).toBe(callId);

      expect((await post(`/agents/${id}/approvals/${callId}`, { decision: 'allow' })).status).toBe(
        202,
      );
      expect((await reader.next('toolEnd')).data.outcome).toMatchObject({ status: 'success' });
      await reader.next('turnEnd');
      await reader.cancel();
      expect(await readFile(join(created.workspace, 'hello.txt'), 'utf8')).toBe('hi\n');
      // The model's second call, made by the second process, carries the whole conversation.
      expect(api.requests).toHaveLength(2);
      const messages = api.requests[1]?.body.messages ?? [];
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[0]?.content).toBe('Write hello.txt');

      // A graceful stop keeps the session too.
      second.child.kill('SIGTERM');
      expect((await second.exited)[0]).toBe(0);
    } finally {
      current.child.kill('SIGKILL');
    }
  }, 60_000);
});
