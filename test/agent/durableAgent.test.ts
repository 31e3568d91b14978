/**
 * createAgent({ store, sessionId }): every step recorded in a real SQLite file; an agent created
 * again on the same session goes on where the first one stopped, with what was in flight resumed.
 * (The crash test kills real processes; these tests stop an agent in-process.)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  createAgent,
  type CreateAgentOptions,
  defineTool,
  findTranscriptViolations,
} from '../../src/index.js';
import { createSqliteSessionStore } from '../../src/persistence/sqliteSessionStore.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';
import {
  type MessagesApiServer,
  reply,
  type Script,
  startMessagesApiServer,
} from '../../src/testing/index.js';

let directory: string;
let store: SessionStore;
let server: MessagesApiServer | undefined;
const agents: Agent[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'durable-agent-'));
  store = createSqliteSessionStore({ path: join(directory, 'sessions.db') });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.shutdown({ timeoutMs: 1_000 })));
  await server?.close();
  server = undefined;
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

async function agentOn(script: Script, options: CreateAgentOptions = {}): Promise<Agent> {
  server ??= await startMessagesApiServer({ script });
  const agent = createAgent({
    workspace: directory,
    autoCommit: false,
    permissions: { mode: 'bypassPermissions' },
    anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
    store,
    sessionId: 'alice-1',
    ...options,
  });
  agents.push(agent);
  await agent.ready;
  return agent;
}

/** Stops an agent the way a crash would: nothing more is recorded, nothing is answered. */
function abandon(agent: Agent): void {
  agents.splice(agents.indexOf(agent), 1);
  agent.actor.stop();
}

describe('an agent with a session store', () => {
  it('has one writer: the agent that opened the session last; an earlier one is refused and starts nothing', async () => {
    const first = await agentOn([reply('from the second agent'), reply('never asked')]);
    const second = await agentOn([]);
    const refused: string[] = [];
    const retries: unknown[] = [];
    first.on('error', ({ message }) => refused.push(message));
    first.on('retry', (retry) => retries.push(retry));

    first.send('written by the first agent?');
    const stopped = await first
      .waitUntilIdle({ timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    expect(stopped).toMatchObject({ code: 'AGENT_FAILED', cause: { code: 'SESSION_FENCED' } });
    expect(refused).toEqual([
      expect.stringMatching(
        /^the session could not be recorded, so the agent stopped: .*claimed by another writer/,
      ),
    ]);
    // It stopped at once: no model call, and no retries of one it was never allowed to make.
    expect(server?.requests).toHaveLength(0);
    expect(retries).toEqual([]);
    expect(first.actor.getSnapshot().status).toBe('stopped');
    const ignored: string[] = [];
    first.on('diagnostic', ({ code, message }) => ignored.push(`${code}: ${message}`));
    first.send('anyone there?');
    expect(ignored).toEqual([
      expect.stringMatching(
        /^AGENT_STOPPED: UserInput ignored: the agent has stopped \(.*claimed by another writer/,
      ),
    ]);

    second.send('hello');
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    const entries = await store.entries('alice-1');
    expect(JSON.stringify(entries)).not.toContain('written by the first agent?');
    expect(second.context.messages.map((message) => message.content)).toEqual([
      'hello',
      [{ type: 'text', text: 'from the second agent' }],
    ]);
  });

  it('stops when its store fails: the tool whose start could not be recorded never runs, and the next agent goes on', async () => {
    let runs = 0;
    const touch = defineTool({
      name: 'touch',
      description: 'Counts its runs.',
      input: z.object({}),
      mutating: true,
      execute: () => {
        runs += 1;
        return Promise.resolve('touched');
      },
    });
    // The disk fills up just as the tool call's start is written.
    const full: SessionStore = Object.create(store) as SessionStore;
    full.append = (sessionId, write) =>
      write.entries.some((entry) => entry.kind === 'started' && entry.data.effect === 'tool')
        ? Promise.reject(new Error('SQLITE_FULL: database or disk is full'))
        : store.append(sessionId, write);
    const script: Script = [
      reply([{ type: 'tool_use', name: 'touch', input: {} }]),
      reply('Touched it.'),
    ];
    const first = await agentOn(script, { tools: [touch], store: full });
    const errors: string[] = [];
    first.on('error', ({ message }) => errors.push(message));
    first.send('touch it');
    const stopped = await first
      .waitUntilIdle({ timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    expect(stopped).toMatchObject({ code: 'AGENT_FAILED', cause: { code: 'STORE_FAILED' } });
    expect(errors).toEqual([expect.stringMatching(/could not be recorded.*disk is full/)]);
    expect(runs).toBe(0);

    const second = await agentOn(script, { tools: [touch] });
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    expect(runs).toBe(1);
    expect(second.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Touched it.' }],
    });
  });

  it('records the conversation, and an agent on the same session goes on from it', async () => {
    const first = await agentOn([reply('Hello, Alice.'), reply('You said hello.')]);
    first.send('hello');
    await first.waitUntilIdle({ timeoutMs: 10_000 });
    await first.shutdown();
    agents.splice(agents.indexOf(first), 1);

    const second = await agentOn([]);
    expect(second.context.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello, Alice.' }] },
    ]);
    second.send('what did I say?');
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    expect(server!.requests.at(-1)?.body.messages).toHaveLength(3);
    expect(second.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'You said hello.' }],
    });
  });

  it('delivers input sent before the session is open, in order', async () => {
    server = await startMessagesApiServer({ script: [reply('One.'), reply('Two.')] });
    const agent = createAgent({
      workspace: directory,
      autoCommit: false,
      anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      store,
      sessionId: 'early',
    });
    agents.push(agent);
    agent.send('first');
    agent.send('second');
    expect(() => agent.state).toThrow(/await agent.ready/);
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.context.messages.map((message) => message.content)).toEqual([
      'first',
      [{ type: 'text', text: 'One.' }],
      'second',
      [{ type: 'text', text: 'Two.' }],
    ]);
  });

  it('resumes a turn stopped mid-tools: a read-only call runs again, a mutating one is never run twice', async () => {
    await writeFile(join(directory, 'notes.txt'), 'remember the milk');
    let appends = 0;
    let reads = 0;
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const appendLine = defineTool({
      name: 'append_line',
      description: 'Appends a line to log.txt.',
      input: z.object({ line: z.string() }),
      mutating: true,
      execute: async ({ line }, { workspace }) => {
        appends += 1;
        await writeFile(join(workspace, 'log.txt'), `${line}\n`, { flag: 'a' });
        await blocked;
        return 'appended';
      },
    });
    const readNotes = defineTool({
      name: 'read_notes',
      description: 'Reads notes.txt.',
      input: z.object({}),
      mutating: false,
      execute: async (_input, { workspace }) => {
        reads += 1;
        // Still running when the agent stops, as the append is.
        await blocked;
        return readFile(join(workspace, 'notes.txt'), 'utf8');
      },
    });
    const script: Script = [
      reply([
        { type: 'tool_use', name: 'append_line', input: { line: 'milk' } },
        { type: 'tool_use', name: 'read_notes', input: {} },
      ]),
      reply('Done.'),
    ];
    const tools = [appendLine, readNotes];
    const first = await agentOn(script, { tools });
    first.send('note it down');
    while (appends === 0 || reads === 0) await sleep(5);
    await sleep(20);
    abandon(first);
    release();

    const second = await agentOn(script, { tools });
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    expect(appends).toBe(1);
    expect(reads, 'the read ran before the stop and again after it').toBe(2);
    const sent = server!.requests.at(-1)?.body.messages ?? [];
    expect(findTranscriptViolations(sent)).toEqual([]);
    expect(sent.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: expect.any(String) as string,
        content:
          'interrupted: the process stopped while this call was running; it may or may not have taken effect',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: expect.any(String) as string,
        content: 'remember the milk',
      },
    ]);
    expect(second.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
    });
  });

  it('resumes a model call that was streaming: sent again, its text not doubled', async () => {
    const script: Script = [
      reply('Hello there, this streams slowly.', { eventDelayMs: 40, textChunkSize: 4 }),
    ];
    const first = await agentOn(script);
    first.send('hi');
    await new Promise<void>((resolve) => first.on('text', () => resolve()));
    abandon(first);
    await server!.close();
    server = await startMessagesApiServer({ script: [reply('Hello there, this streams slowly.')] });
    const second = await agentOn([]);
    expect(second.state).toBe('CallingLlm');
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    expect(second.context.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello there, this streams slowly.' }] },
    ]);
  });
});
