/**
 * An agent stopped during a retry backoff and started again on its session waits only what was
 * left of the backoff: the log says when it started (a `started {effect: 'retry'}` entry), the
 * `Resume` carries how long ago that was, and the chart takes it off the delay.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Agent,
  createAgent,
  createMemorySessionStore,
  type SessionStore,
  type StoredEntry,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  overloaded,
  reply,
  startMessagesApiServer,
} from '../../src/testing/index.js';

let directory: string;
let server: MessagesApiServer;
let requests = 0;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agent-restart-'));
  requests = 0;
  server = await startMessagesApiServer({
    script: () => (++requests === 1 ? overloaded() : reply('Back again.')),
  });
});
afterEach(async () => {
  await server.close();
  await rm(directory, { recursive: true, force: true });
});

function agentOn(store: SessionStore): Agent {
  return createAgent({
    workspace: directory,
    tools: [],
    anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
    // A backoff long enough to stop the agent in the middle of it, waited on the real clock.
    retry: { baseDelayMs: 1_200, factor: 1, maxDelayMs: 1_200, seed: 7 },
    store,
    sessionId: 'restarted',
  });
}

function nextRetry(agent: Agent): Promise<{ delayMs: number; attempt: number }> {
  return new Promise((resolve) => {
    const stop = agent.on('retry', (retry) => {
      stop();
      resolve(retry);
    });
  });
}

const retryStarts = (entries: StoredEntry[]) =>
  entries.flatMap((entry) =>
    entry.kind === 'started' && entry.data.effect === 'retry'
      ? [{ at: entry.at, delayMs: entry.data.delayMs }]
      : [],
  );

describe('an agent restarted during a retry backoff', () => {
  it('waits only what was left of it', async () => {
    const store = createMemorySessionStore();
    const first = agentOn(store);
    const firstRetry = nextRetry(first);
    first.send('hello');
    const { delayMs: delay } = await firstRetry;
    await first.recorded();
    const [started] = retryStarts(await store.entries('restarted'));
    expect(started).toEqual({ at: expect.any(Number) as unknown, delayMs: delay });
    // Some of the backoff passes; then the process stops (its session kept, nothing recorded).
    await sleep(300);
    await first.shutdown();
    expect(requests).toBe(1);

    const before = Date.now();
    const second = agentOn(store);
    const secondRetry = nextRetry(second);
    await second.ready;
    const { delayMs: left, attempt } = await secondRetry;
    const after = Date.now();
    expect(attempt).toBe(2);
    // What had passed since the backoff started, by the clock when the session was opened.
    const waited = delay - left;
    expect(waited).toBeGreaterThanOrEqual(before - started!.at);
    expect(waited).toBeLessThanOrEqual(after - started!.at);
    await second.recorded();
    const log = await store.entries('restarted');
    const resume = log.find((entry) => entry.kind === 'event' && entry.data.type === 'Resume');
    expect(resume?.data).toEqual({
      type: 'Resume',
      startedToolCallIds: [],
      retryElapsedMs: waited,
    });
    // The restarted timer waits what is left, and records that it started.
    expect(retryStarts(log).map((start) => start.delayMs)).toEqual([delay, left]);

    await second.waitUntilIdle({ timeoutMs: 30_000 });
    expect(requests).toBe(2);
    expect(second.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Back again.' }],
    });
    await second.shutdown();
  });
});
