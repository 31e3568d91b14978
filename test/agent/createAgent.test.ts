/**
 * createAgent end to end: the real Anthropic SDK against the local Messages API server, real
 * files, real bash and real git.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  findTranscriptViolations,
  type Message,
  type ToolResultBlock,
} from '../../src/index.js';
import {
  httpError,
  internalServerError,
  overloaded,
  rateLimited,
  reply,
  unauthorized,
} from '../../src/testing/index.js';
import { git, type Session, startSession } from './harness.js';

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const toolUse = (name: string, input: Record<string, unknown>, id?: string) =>
  id === undefined
    ? ({ type: 'tool_use', name, input } as const)
    : ({ type: 'tool_use', name, input, id } as const);

function lastRequestMessages(s: Session): Message[] {
  const body = s.server.requests.at(-1)?.body;
  return body?.messages ?? [];
}

function toolResults(message: Message | undefined): ToolResultBlock[] {
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

/** The text of a tool_result (our tools answer with a string). */
function resultText(result: ToolResultBlock | undefined): string {
  return typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content);
}

describe('createAgent', () => {
  it('continues a stored transcript without writing to the array it was given', async () => {
    const earlier = Object.freeze<Message[]>([
      { role: 'user', content: 'Remember the number 7.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: 7.' }] },
    ]) as Message[];
    session = await startSession([reply('It was 7.'), reply('And 7 again.')], {
      messages: earlier,
    });
    session.agent.send('Which number?');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    session.agent.send('Once more?');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(earlier).toHaveLength(2);
    expect(session.agent.context.messages.length).toBe(6);
    expect(lastRequestMessages(session).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('runs a turn with parallel tools, commits the edit, and answers', async () => {
    session = await startSession(
      [
        reply([
          { type: 'text', text: 'Reading and editing.' },
          toolUse('read_file', { path: 'hello.txt' }),
          toolUse('edit_file', { path: 'hello.txt', old_string: 'Hello', new_string: 'Hi' }),
        ]),
        reply('Done: hello.txt now greets with Hi.'),
      ],
      { files: { 'hello.txt': 'Hello, world\n' } },
    );
    session.agent.send('Change the greeting to Hi');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });

    expect(await readFile(join(session.workspace, 'hello.txt'), 'utf8')).toBe('Hi, world\n');
    expect(session.notes.commit).toHaveLength(1);
    expect(session.notes.commit[0]?.files).toEqual(['hello.txt']);
    expect(await git(session.workspace, 'log', '--format=%s', '-1')).toBe(
      session.notes.commit[0]?.message.split('\n')[0],
    );
    expect(session.notes.toolStart.map((note) => note.call.name)).toEqual([
      'read_file',
      'edit_file',
    ]);
    expect(session.notes.toolEnd.map((note) => note.outcome.status)).toEqual([
      'success',
      'success',
    ]);
    expect(session.notes.text.map((note) => note.text).join('')).toBe(
      'Reading and editing.Done: hello.txt now greets with Hi.',
    );
    expect(session.states).toEqual([
      'WaitingForUserInput',
      'CallingLlm',
      'ProcessingLlmResponse',
      'ExecutingTools',
      'PostToolsHook',
      'CallingLlm',
      'ProcessingLlmResponse',
      'WaitingForUserInput',
    ]);
    const second = lastRequestMessages(session);
    expect(toolResults(second.at(-1)).map((block) => block.is_error ?? false)).toEqual([
      false,
      false,
    ]);
    expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
    expect(session.server.problems).toEqual([]);
  });

  describe('faults', () => {
    const faults = [
      ['a 429 with retry-after', rateLimited({ retryAfterSeconds: 1 })],
      ['a 529 overloaded', overloaded()],
      ['a 500', internalServerError()],
      [
        'a connection dropped mid-stream',
        reply('Partial answ', { cut: { afterEvents: 4, by: 'destroy_connection' } }),
      ],
      [
        'an error event mid-stream',
        reply('Partial', { cut: { afterEvents: 3, by: 'error_event' } }),
      ],
    ] as const;

    for (const [name, fault] of faults) {
      it(`retries after ${name} and then answers`, async () => {
        session = await startSession([fault, reply('Recovered.')]);
        session.agent.send('hi');
        await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
        expect(session.states).toContain('Error');
        expect(session.notes.retry).toHaveLength(1);
        expect(session.agent.context.messages.at(-1)).toEqual({
          role: 'assistant',
          content: [{ type: 'text', text: 'Recovered.' }],
        });
        expect(session.server.requests).toHaveLength(2);
      });
    }

    it('announces the wait Retry-After asks for', async () => {
      session = await startSession([rateLimited({ retryAfterSeconds: 3 }), reply('ok')]);
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.retry[0]?.delayMs).toBe(3000);
    });

    it('waits out Retry-After before the retry, on the real clock', async () => {
      // The harness scales retry waits down; this one runs the retry timer as a user gets it.
      session = await startSession([rateLimited({ retryAfterSeconds: 1 }), reply('ok')], {
        retryDelayScale: 1,
      });
      const sentAt = performance.now();
      let retriedAt: number | undefined;
      session.agent.on('state', ({ state }) => {
        if (state === 'CallingLlm' && session!.states.includes('Error')) {
          retriedAt ??= performance.now();
        }
      });
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.retry.map((retry) => retry.delayMs)).toEqual([1000]);
      expect(session.server.requests).toHaveLength(2);
      // The second call started no sooner than the wait after the first: a lower bound only,
      // which a busy machine can only lengthen.
      expect(retriedAt! - sentAt).toBeGreaterThanOrEqual(1000);
    });

    it('gives up at once on a 401 and says why', async () => {
      session = await startSession([unauthorized('invalid x-api-key')]);
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.states).not.toContain('Error');
      expect(session.notes.error).toHaveLength(1);
      expect(session.notes.error[0]?.source).toBe('chart');
      expect(session.notes.error[0]?.message).toMatch(
        /^Model call failed \(auth, not retried\): .*invalid x-api-key/,
      );
    });

    it('gives up after maxRetries attempts', async () => {
      session = await startSession([overloaded(), overloaded(), overloaded()], { maxRetries: 3 });
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.server.requests).toHaveLength(3);
      expect(session.notes.error[0]?.message).toMatch(
        /^Model call failed after 3 attempts \(overloaded\)/,
      );
    });

    it('treats a 400 as a non-retryable invalid request', async () => {
      session = await startSession([httpError(400, 'invalid_request_error', 'messages: bad')]);
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.server.requests).toHaveLength(1);
      expect(session.notes.error[0]?.message).toMatch(/invalid_request, not retried/);
    });
  });

  describe('interrupts', () => {
    it('mid-stream keeps the partial text and the next request is valid', async () => {
      session = await startSession([
        reply('One two three four five six seven eight', { eventDelayMs: 40, textChunkSize: 4 }),
        reply('Sure.'),
      ]);
      session.agent.send('count');
      await new Promise<void>((resolve) => {
        const stop = session!.agent.on('text', () => {
          stop();
          resolve();
        });
      });
      session.agent.interrupt();
      expect(session.agent.state).toBe('WaitingForUserInput');
      const kept = session.agent.context.messages.at(-1);
      expect(kept?.role).toBe('assistant');
      const keptText =
        typeof kept?.content === 'string' ? kept.content : JSON.stringify(kept?.content);
      expect(keptText).toContain('One');
      expect(keptText).not.toContain('eight');
      session.agent.send('continue');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(findTranscriptViolations(lastRequestMessages(session))).toEqual([]);
      expect(lastRequestMessages(session).map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'user',
      ]);
    });

    it('mid-tools kills the running call and tells the model how it really ended', async () => {
      session = await startSession(
        [
          reply([
            toolUse('bash', { command: 'touch started.txt && sleep 30 && touch finished.txt' }),
          ]),
          reply('Stopped.'),
        ],
        { permissions: { mode: 'bypassPermissions' } },
      );
      session.agent.send('run it');
      const workspace = session.workspace;
      await until(() =>
        access(join(workspace, 'started.txt')).then(
          () => true,
          () => false,
        ),
      );
      const started = Date.now();
      const ended = new Promise<void>((resolve) => session!.agent.on('toolEnd', () => resolve()));
      session.agent.interrupt();
      // The turn ends for the user at once; the call's result goes in once it reports.
      expect(session.agent.state).toBe('WaitingForUserInput');
      await ended;
      const results = toolResults(session.agent.context.messages.at(-1));
      expect(results).toEqual([
        expect.objectContaining({
          is_error: true,
          content:
            'interrupted: the user interrupted the turn and the call stopped (cancelled: the command was killed before it finished)',
        }),
      ]);
      await expect(access(join(session.workspace, 'finished.txt'))).rejects.toThrow();
      session.agent.send('ok');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      // Far below the command's 30 s: it was killed, not waited for.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(findTranscriptViolations(lastRequestMessages(session))).toEqual([]);
    });
  });

  describe('tools', () => {
    it('a tool timeout becomes an error result the model sees', async () => {
      session = await startSession(
        [reply([toolUse('bash', { command: 'sleep 10' })]), reply('Too slow.')],
        { toolTimeoutMs: 200, permissions: { mode: 'bypassPermissions' } },
      );
      session.agent.send('wait');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      const [result] = toolResults(lastRequestMessages(session).at(-1));
      expect(result).toMatchObject({ is_error: true, content: 'timed out after 200 ms' });
    });

    it('a throwing tool becomes an error result, never a crash', async () => {
      const explode = defineTool({
        name: 'explode',
        description: 'Always fails',
        input: z.object({}),
        mutating: false,
        execute: () => {
          throw new Error('kaboom');
        },
      });
      session = await startSession([reply([toolUse('explode', {})]), reply('It failed.')], {
        tools: [explode],
      });
      session.agent.send('try it');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(toolResults(lastRequestMessages(session).at(-1))[0]).toMatchObject({
        is_error: true,
        content: 'kaboom',
      });
    });

    it('refuses a path that escapes the workspace', async () => {
      session = await startSession([
        reply([toolUse('read_file', { path: '../../../etc/passwd' })]),
        reply('Not allowed.'),
      ]);
      session.agent.send('read it');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      const [result] = toolResults(lastRequestMessages(session).at(-1));
      expect(result?.is_error).toBe(true);
      expect(resultText(result)).toMatch(/leaves the workspace/);
    });

    it('tells the model its input failed the schema', async () => {
      session = await startSession([
        reply([toolUse('read_file', { file: 'a.txt' })]),
        reply('Oops.'),
      ]);
      session.agent.send('read');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      const [result] = toolResults(lastRequestMessages(session).at(-1));
      expect(result?.is_error).toBe(true);
      expect(resultText(result)).toMatch(/path/);
    });
  });

  describe('hooks', () => {
    it('a failing hook is reported and the agent goes on', async () => {
      session = await startSession(
        [reply([toolUse('write_file', { path: 'a.txt', content: 'x' })]), reply('Written.')],
        { files: { 'seed.txt': 'seed' } },
      );
      // Break the repository's index, so git fails on it (a broken HEAD would make git see no
      // repository at all, which the hook skips without an error).
      await writeFile(join(session.workspace, '.git/index'), 'not an index');
      session.agent.send('write');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.states).toContain('PostToolsHook');
      // The chart reports the hook's failure (its DisplayError), naming the hook as the source.
      expect(session.notes.error).toEqual([
        {
          source: 'hook',
          message: expect.stringMatching(
            /^The post-tools hook failed and was skipped: auto-commit failed: git .* \(exit 128\): .*index/,
          ) as unknown,
        },
      ]);
      expect(session.agent.context.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'Written.' }],
      });
      expect(session.notes.commit).toEqual([]);
    });

    it("commits only the file the agent wrote, leaving the user's uncommitted work alone", async () => {
      session = await startSession(
        [reply([toolUse('write_file', { path: 'b.txt', content: 'agent' })]), reply('Written.')],
        { files: { 'mine.txt': 'mine\n' } },
      );
      await writeFile(join(session.workspace, 'mine.txt'), 'mine, changed by the user\n');
      await writeFile(join(session.workspace, '.env'), 'API_KEY=secret\n');
      session.agent.send('write b.txt');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.commit.map((commit) => commit.files)).toEqual([['b.txt']]);
      expect(await git(session.workspace, 'show', '--name-only', '--format=', 'HEAD')).toBe(
        'b.txt',
      );
      // The harness trims git's output: the first line is ' M mine.txt'.
      expect(await git(session.workspace, 'status', '--porcelain')).toBe('M mine.txt\n?? .env');
    });

    it('does not commit after a read-only turn', async () => {
      session = await startSession(
        [reply([toolUse('list_files', { path: '.' })]), reply('Listed.')],
        {
          files: { 'a.txt': 'a' },
        },
      );
      session.agent.send('list');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.states).not.toContain('PostToolsHook');
      expect(await git(session.workspace, 'rev-list', '--count', 'HEAD')).toBe('1');
    });
  });

  describe('permissions', () => {
    it('without permissions given, runs edits and asks before bash', async () => {
      session = await startSession([
        reply([
          toolUse('write_file', { path: 'a.txt', content: 'edited' }),
          toolUse('bash', { command: 'echo ran > b.txt' }),
        ]),
        reply('Both done.'),
      ]);
      session.agent.on('approvalRequest', ({ call }) => session!.agent.approve(call.id));
      session.agent.send('edit and run');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.approvalRequest.map(({ call }) => call.name)).toEqual(['bash']);
      expect(await readFile(join(session.workspace, 'a.txt'), 'utf8')).toBe('edited');
      expect(await readFile(join(session.workspace, 'b.txt'), 'utf8')).toBe('ran\n');
    });

    it('plan mode refuses mutating tools with an error the model sees', async () => {
      session = await startSession(
        [
          reply([toolUse('write_file', { path: 'a.txt', content: 'x' })]),
          reply('Planned instead.'),
        ],
        { permissions: { mode: 'plan' } },
      );
      session.agent.send('write');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      const [result] = toolResults(lastRequestMessages(session).at(-1));
      expect(result).toMatchObject({ is_error: true });
      expect(resultText(result)).toMatch(/^permission denied: plan mode is read-only/);
      await expect(readFile(join(session.workspace, 'a.txt'), 'utf8')).rejects.toThrow();
    });

    it('an approval round trip runs the call once approved', async () => {
      session = await startSession(
        [reply([toolUse('write_file', { path: 'a.txt', content: 'approved' })]), reply('Written.')],
        { permissions: { mode: 'default' } },
      );
      session.agent.on('approvalRequest', ({ call }) => session!.agent.approve(call.id));
      session.agent.send('write');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.approvalRequest).toHaveLength(1);
      expect(await readFile(join(session.workspace, 'a.txt'), 'utf8')).toBe('approved');
    });

    it('a denial is reported to the model and the turn goes on', async () => {
      session = await startSession(
        [reply([toolUse('bash', { command: 'rm -rf *' })]), reply('Understood.')],
        { permissions: { mode: 'default' } },
      );
      session.agent.on('approvalRequest', ({ call }) => session!.agent.deny(call.id));
      session.agent.send('clean up');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(toolResults(lastRequestMessages(session).at(-1))[0]).toMatchObject({
        is_error: true,
        content: 'permission denied: the user refused this bash call',
      });
    });
  });

  describe('shutdown', () => {
    it('with tools in flight cancels them and leaves a valid transcript', async () => {
      session = await startSession([reply([toolUse('bash', { command: 'sleep 30' })])], {
        permissions: { mode: 'bypassPermissions' },
      });
      session.agent.send('run');
      await new Promise<void>((resolve) => session!.agent.on('toolStart', () => resolve()));
      const started = Date.now();
      await session.agent.shutdown();
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(session.agent.actor.getSnapshot().status).toBe('done');
      expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
      expect(toolResults(session.agent.context.messages.at(-1))[0]).toMatchObject({
        content:
          'cancelled: the agent shut down before this tool call finished; it may or may not have taken effect',
      });
    });

    it('with drain lets the turn finish first', async () => {
      session = await startSession([reply('All done.', { eventDelayMs: 5 })]);
      session.agent.send('hi');
      await session.agent.shutdown({ drain: true });
      expect(session.agent.context.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'All done.' }],
      });
    });

    it('reports events after shutdown as diagnostics, not errors', async () => {
      session = await startSession([]);
      await session.agent.shutdown();
      session.agent.send('anyone?');
      expect(session.notes.diagnostic.map((d) => d.code)).toEqual(['AGENT_STOPPED']);
    });
  });

  it('reports an approval for an unknown call as a diagnostic', async () => {
    session = await startSession([]);
    session.agent.approve('toolu_missing');
    expect(session.notes.diagnostic[0]).toMatchObject({
      code: 'EVENT_NOT_ACCEPTED',
      message: 'ToolApproval is not accepted in state WaitingForUserInput.Ready; nothing changed',
    });
  });
});
