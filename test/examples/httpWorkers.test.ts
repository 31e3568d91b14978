/**
 * The HTTP service example as two worker processes on one PostgreSQL: a session created on one,
 * its input sent to the other, its event stream read from one and resumed on the other with
 * `Last-Event-ID`, its approval given on either; the tool's file is where the session works. A
 * question the model asks is on the stream, and its answer is taken on any worker. The workers
 * run the hooks of `workerHooks.ts` (`AGENT_HOOKS`): a prompt one blocks is streamed back, and a
 * turn the `stop` hook has go on makes a second model call in the same drive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';

const installation = inject('postgresInstallation');
const WORKER = join(import.meta.dirname, '../../examples/http-service/workerMain.ts');
const HOOKS = join(import.meta.dirname, 'workerHooks.ts');

interface SseEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

/** Reads the SSE stream at `url` until it ends, or until `limit` events came. */
async function readEvents(url: string, lastEventId?: number, limit = Infinity) {
  const stop = new AbortController();
  const response = await fetch(url, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
    signal: stop.signal,
  });
  expect(response.status).toBe(200);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  while (events.length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const fields = Object.fromEntries(
        buffer
          .slice(0, end)
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      buffer = buffer.slice(end + 2);
      events.push({
        id: Number(fields.id),
        type: fields.event!,
        data: JSON.parse(fields.data!) as Record<string, unknown>,
      });
    }
  }
  stop.abort();
  return events.slice(0, limit);
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe.skipIf(installation === null)('the HTTP service as several workers', () => {
  let server: PostgresServer;
  let model: MessagesApiServer;
  let root: string;
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  /** What the workers wrote to stderr (passed on to the test's own as it comes). */
  let stderr = '';

  beforeAll(async () => {
    server = await startPostgres({ installation: installation!, database: 'service' });
    root = await mkdtemp(join(tmpdir(), 'http-workers-'));
    model = await startMessagesApiServer({
      eventDelayMs: 2,
      script: (request) => {
        // A session told to check its work says it is done twice (the stop hook of
        // workerHooks.ts has it go on once).
        if (request.messages[0]?.content === 'Check your work') {
          return request.messages.length === 1
            ? reply('Done, I think.')
            : reply('Checked again: done.');
        }
        // A session told to plan is asked a question first; any other writes a file.
        if (request.messages[0]?.content === 'Plan the service') {
          return request.messages.length === 1
            ? reply([
                {
                  type: 'tool_use',
                  name: 'ask_user',
                  input: {
                    questions: [
                      {
                        header: 'Database',
                        question: 'Which database?',
                        options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }],
                      },
                    ],
                  },
                },
              ])
            : reply('Noted.');
        }
        return request.messages.length === 1
          ? reply([
              { type: 'text', text: 'Writing the file.' },
              {
                type: 'tool_use',
                name: 'write_file',
                input: { path: 'hello.txt', content: 'hi\n' },
              },
            ])
          : reply('Done.');
      },
    });
    // The first worker builds the schemas, the second starts beside it.
    for (let index = 0; index < 2; index++) {
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
        env: {
          ...process.env,
          DATABASE_URL: server.connectionString,
          PORT: '0',
          WORKSPACE_ROOT: root,
          ANTHROPIC_BASE_URL: model.baseURL,
          ANTHROPIC_API_KEY: 'test',
          AGENT_HOOKS: HOOKS,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        process.stderr.write(chunk);
      });
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
      });
      urls.push(line.replace(/^listening /, ''));
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    await model?.close();
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('answers for any session on any worker; a stream resumed on another worker misses nothing', async () => {
    const [a, b] = urls as [string, string];
    const { id } = await post(`${a}/sessions`, {});
    const { drive } = await post(`${b}/sessions/${String(id)}/messages`, {
      text: 'Create hello.txt saying hi',
    });
    const events = (url: string) => `${url}/sessions/${String(id)}/drives/${String(drive)}/events`;

    // Two events from one worker; the rest from the other, after the last one seen.
    const head = await readEvents(events(a), undefined, 2);
    const rest = await readEvents(events(b), head.at(-1)!.id);
    const whole = [...head, ...rest];
    expect(whole.map((event) => event.id)).toEqual(whole.map((_, index) => index));
    // One model call, its text, its end and usage, and the one call that waits for approval,
    // once.
    expect(whole.map((event) => event.type)).toEqual([
      'llmStart',
      ...whole.filter((event) => event.type === 'text').map(() => 'text'),
      'llmEnd',
      'usage',
      'approvalRequest',
      'idle',
    ]);
    expect(whole.find((event) => event.type === 'llmEnd')?.data).toMatchObject({
      status: 'completed',
    });
    const text = whole.flatMap((event) => (event.type === 'text' ? [event.data.text] : []));
    expect(text.join('')).toBe('Writing the file.');
    const call = whole.find((event) => event.type === 'approvalRequest')!.data.call as {
      id: string;
    };
    expect(await (await fetch(`${a}/sessions/${String(id)}`)).json()).toMatchObject({
      state: 'ExecutingTools',
      pendingApprovals: [call.id],
    });

    const approved = await post(`${a}/sessions/${String(id)}/approvals/${call.id}`, {
      decision: 'allow',
    });
    const after = await readEvents(
      `${b}/sessions/${String(id)}/drives/${String(approved.drive)}/events`,
    );
    // The approved call runs; nothing asks for its approval again.
    expect(after.map((event) => event.type)).toContain('toolEnd');
    expect(after.filter((event) => event.type === 'approvalRequest')).toEqual([]);
    expect(after.at(-1)).toMatchObject({ type: 'idle', data: { state: 'WaitingForUserInput' } });
    expect(await readFile(join(root, String(id), 'hello.txt'), 'utf8')).toBe('hi\n');
    expect(await (await fetch(`${b}/sessions/${String(id)}`)).json()).toMatchObject({
      state: 'WaitingForUserInput',
      pendingApprovals: [],
    });
    // A drive of another session is not this session's to read.
    expect((await fetch(`${a}/sessions/other/drives/${String(drive)}/events`)).status).toBe(404);
  }, 60_000);

  it('streams the model’s question, and takes its answer on any worker', async () => {
    const [a, b] = urls as [string, string];
    const { id } = await post(`${a}/sessions`, {});
    const { drive } = await post(`${a}/sessions/${String(id)}/messages`, {
      text: 'Plan the service',
    });
    const asked = await readEvents(`${b}/sessions/${String(id)}/drives/${String(drive)}/events`);
    // The stream's values carry their own type; the question is the rest.
    const { type, ...question } = asked.find((event) => event.type === 'question')!.data as {
      type: string;
      callId: string;
      questions: unknown[];
    };
    expect(type).toBe('question');
    expect(question).toMatchObject({
      questions: [{ header: 'Database', question: 'Which database?' }],
    });
    expect(asked.at(-1)).toMatchObject({
      type: 'idle',
      data: { state: 'ExecutingTools', awaitingAnswer: [question] },
    });
    expect(await (await fetch(`${b}/sessions/${String(id)}`)).json()).toMatchObject({
      pendingApprovals: [],
      pendingQuestions: [question],
    });
    const wrong = await fetch(`${a}/sessions/${String(id)}/answers/${question.callId}`, {
      method: 'POST',
      body: JSON.stringify({ answers: ['SQLite', 'PostgreSQL'] }),
    });
    expect(wrong.status).toBe(400);

    const answered = await post(`${b}/sessions/${String(id)}/answers/${question.callId}`, {
      answers: ['SQLite'],
    });
    const after = await readEvents(
      `${a}/sessions/${String(id)}/drives/${String(answered.drive)}/events`,
    );
    expect(after.find((event) => event.type === 'toolEnd')?.data).toMatchObject({
      call: { id: question.callId, name: 'ask_user' },
      outcome: { status: 'success', output: expect.stringContaining('→ SQLite') as string },
    });
    expect(after.at(-1)).toMatchObject({ type: 'idle', data: { state: 'WaitingForUserInput' } });
    const resent = model.requests.find(
      (request) =>
        request.body.messages[0]?.content === 'Plan the service' &&
        request.body.messages.length === 3,
    );
    expect(JSON.stringify(resent?.body.messages.at(-1))).toContain('→ SQLite');
  }, 60_000);

  it('runs the hooks on the workers: a blocked prompt is streamed back, and a stop hook makes a second model call', async () => {
    const [a, b] = urls as [string, string];
    const { id } = await post(`${a}/sessions`, {});
    const secret = 'Deploy with key sk-ant-0000';
    const blocked = await post(`${a}/sessions/${String(id)}/messages`, { text: secret });
    const dropped = await readEvents(
      `${b}/sessions/${String(id)}/drives/${String(blocked.drive)}/events`,
    );
    expect(dropped.map((event) => event.type)).toEqual(['promptDropped', 'idle']);
    expect(dropped[0]?.data).toEqual({
      type: 'promptDropped',
      prompt: { role: 'user', content: secret },
      reason: 'the userPromptSubmit hook blocked it: the prompt contains an API key',
    });
    expect(dropped.at(-1)).toMatchObject({ data: { state: 'WaitingForUserInput' } });
    expect(await (await fetch(`${a}/sessions/${String(id)}`)).json()).toMatchObject({
      messages: 0,
    });

    const checked = await post(`${b}/sessions/${String(id)}/messages`, {
      text: 'Check your work',
    });
    const turn = await readEvents(
      `${a}/sessions/${String(id)}/drives/${String(checked.drive)}/events`,
    );
    expect(turn.filter((event) => event.type === 'llmStart')).toHaveLength(2);
    const text = turn.flatMap((event) => (event.type === 'text' ? [event.data.text] : []));
    expect(text.join('')).toBe('Done, I think.Checked again: done.');
    expect(turn.at(-1)).toMatchObject({ type: 'idle', data: { state: 'WaitingForUserInput' } });
    // The blocked prompt never reached the model: the session's first message is the next one.
    const requests = model.requests.filter(
      (request) => request.body.messages[0]?.content === 'Check your work',
    );
    expect(requests).toHaveLength(2);
    expect(requests[1]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: '[stop hook] check your work again',
    });
    expect(JSON.stringify(model.requests)).not.toContain('sk-ant-');
  }, 60_000);

  it('runs no query on a connection busy with another (pg warns of it, and pg 9 refuses it)', () => {
    expect(stderr).not.toMatch(/DeprecationWarning|already executing a query/);
  });
});
