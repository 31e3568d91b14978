/**
 * An agent restored while a model call was streaming shows each answer once, whichever way it is
 * restored: `createAgent` on a stored session whose process was killed mid-stream, and XState's
 * own restart (`getPersistedSnapshot`, then `createActor(machine, { snapshot })`) with the
 * package's `createLlmActor`. In both, text the lost call had streamed is part of what is
 * restored, and the call made again streams its answer from the start: nothing is shown, kept
 * or drawn twice.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type InspectionEvent, type Snapshot, waitFor } from 'xstate';
import {
  agentMachine,
  type AgentAction,
  createAgent,
  createLlmActor,
  createSqliteSessionStore,
  type Message,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  reply,
  type ScriptFunction,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import { assistantTexts, transcribe } from './modelCallText.js';

const run = promisify(execFile);
const STORY = 'Once upon a time a statechart kept every word the user had already read.';
const SEQUEL = 'And then it was restored, and said each word once.';
const INPUT = 'tell me a story';
const QUEUED = 'and what happened next?';

/** A model that answers by the conversation, so a request sent again gets the same answer. */
function model(eventDelayMs: number): ScriptFunction {
  return (request) => {
    const last = request.messages.at(-1)?.content;
    return reply(last === INPUT ? STORY : SEQUEL, { eventDelayMs, textChunkSize: 4 });
  };
}

/** Every `streamingText` of the chart's snapshots, from an inspection observer. */
function streamingTexts(): { texts: string[]; inspect: (event: InspectionEvent) => void } {
  const texts: string[] = [];
  return {
    texts,
    inspect: (event) => {
      if (event.type !== '@xstate.snapshot') return;
      const context = (event.snapshot as { context?: { streamingText?: unknown } }).context;
      if (typeof context?.streamingText === 'string') texts.push(context.streamingText);
    },
  };
}

/** True when `text` is the start of one of `answers`: text that was never doubled. */
const startsAnAnswer = (text: string, answers: string[]) =>
  answers.some((answer) => answer.startsWith(text));

let directory: string;
let server: MessagesApiServer;
/** The bundled child script. */
let childScript: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'restore-mid-stream-'));
  server = await startMessagesApiServer({ script: model(25) });
  const bundled = await bundleChild('restore', ['test/agent/crash/streamingChild.ts']);
  childScript = join(bundled, 'streamingChild.mjs');
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('an agent restored while its model call streamed', () => {
  it('by createAgent on the session of a killed process: the call is made again, each answer shown and kept once', async () => {
    const workspace = await mkdtemp(join(directory, 'workspace-'));
    await run('git', ['init', '-q', workspace]);
    const database = join(directory, 'sessions.db');
    const settings = {
      database,
      workspace,
      baseURL: server.baseURL,
      sessionId: 'storyteller',
      input: INPUT,
      queued: QUEUED,
      killAfterChars: 20,
    };
    // The child kills itself: execFile rejects, with what it printed.
    const child = await run(process.execPath, [childScript, JSON.stringify(settings)]).then(
      ({ stdout, stderr }) => ({ signal: null, stdout, stderr }),
      (error: { signal?: string; stdout?: string; stderr?: string }) => error,
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    const killed = JSON.parse(child.stdout?.trim() ?? '') as { shown: string; state: string };
    expect(killed.state).toBe('CallingLlm');
    expect(killed.shown.length).toBeLessThan(STORY.length);

    // The queued input stored the call's stream before it: the log holds the partial text.
    const store = createSqliteSessionStore({ path: database });
    try {
      const logged = (await store.entries('storyteller')).flatMap((entry) =>
        entry.kind === 'event' ? [entry.data] : [],
      );
      expect(logged.map((event) => event.type)).toEqual([
        'UserInput',
        'LlmStarted',
        'LlmTextDelta',
        'UserInput',
      ]);
      expect(logged[2]).toEqual({ type: 'LlmTextDelta', content: killed.shown });

      const observed = streamingTexts();
      const agent = createAgent({
        workspace,
        autoCommit: false,
        anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
        store,
        sessionId: 'storyteller',
        inspect: observed.inspect,
      });
      const seen = transcribe(agent);
      const shown: string[] = [];
      agent.on('text', ({ text }) => shown.push(text));
      try {
        await agent.ready;
        await agent.waitUntilIdle({ timeoutMs: 20_000 });
        expect(agent.context.messages).toEqual([
          { role: 'user', content: INPUT },
          { role: 'assistant', content: [{ type: 'text', text: STORY }] },
          { role: 'user', content: QUEUED },
          { role: 'assistant', content: [{ type: 'text', text: SEQUEL }] },
        ] satisfies Message[]);
        expect(shown.join('')).toBe(STORY + SEQUEL);
        expect(seen.calls).toEqual(['start 1', 'end completed', 'start 1', 'end completed']);
        expect(seen.kept).toEqual(assistantTexts(agent.context.messages));
        const doubled = observed.texts.filter((text) => !startsAnAnswer(text, [STORY, SEQUEL]));
        expect(doubled).toEqual([]);
        expect(observed.texts).toContain(STORY);
      } finally {
        await agent.shutdown();
      }
    } finally {
      await store.close();
    }
  });

  it("by XState's own restart with createLlmActor: the restarted call streams its answer once", async () => {
    const client = new Anthropic({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const machine = agentMachine.provide({ actors: { llm: createLlmActor({ client }) } });
    const first = createActor(machine, { input: { config: { maxRetries: 3 } } }).start();
    first.send({ type: 'UserInput', message: { role: 'user', content: INPUT } });
    await waitFor(first, (snapshot) => snapshot.context.streamingText.length >= 20, {
      timeout: 20_000,
    });
    // The process stops: the persisted snapshot, through JSON, is all that is left.
    const stored = JSON.stringify(first.getPersistedSnapshot());
    first.stop();
    const persisted = JSON.parse(stored) as { context: { streamingText: string } };
    expect(persisted.context.streamingText.length).toBeGreaterThanOrEqual(20);

    const observed = streamingTexts();
    const second = createActor(machine, {
      input: undefined,
      snapshot: JSON.parse(stored) as Snapshot<unknown>,
      inspect: observed.inspect,
    });
    const shown: string[] = [];
    second.on('*', (action: AgentAction) => {
      if (action.type === 'DisplayMessage') shown.push(action.text);
    });
    second.start();
    const done = await waitFor(second, (snapshot) =>
      snapshot.matches({ WaitingForUserInput: 'Ready' }),
    );
    second.stop();

    expect(done.context.messages).toEqual([
      { role: 'user', content: INPUT },
      { role: 'assistant', content: [{ type: 'text', text: STORY }] },
    ] satisfies Message[]);
    expect(server.requests.at(-1)?.body).toMatchObject({ messages: [{ content: INPUT }] });
    // The restarted call's text, shown once: not the lost call's text with the answer after it.
    expect(shown.join('')).toBe(STORY);
    const doubled = observed.texts.filter((text) => !startsAnAnswer(text, [STORY]));
    expect(doubled).toEqual([]);
  });
});
