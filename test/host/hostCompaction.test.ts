/**
 * `host.compact`: a session of the host compacts between turns and the store keeps it so (a new
 * host reads it compacted); an interrupt through the host reaches a compaction under way (the
 * session's order of events is not held up by it); and a session is not dropped from memory
 * while it compacts, however short the host's idle time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentHost,
  createAgentHost,
  createSqliteSessionStore,
  type SessionStore,
  SUMMARY_HEADING,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  type MessagesRequestBody,
  reply,
  startMessagesApiServer,
} from '../../src/testing/index.js';

let directory: string;
let store: SessionStore;
let server: MessagesApiServer;
const hosts: AgentHost[] = [];
/** How long the model takes over a summary, and over an answer, per streamed event. */
let summaryDelayMs = 0;
let answerDelayMs = 0;

function asksForSummary(body: MessagesRequestBody): boolean {
  const last = body.messages.at(-1)?.content;
  return Array.isArray(last) && JSON.stringify(last).includes('write a summary');
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'host-compaction-'));
  store = createSqliteSessionStore({ path: join(directory, 'sessions.db') });
  summaryDelayMs = 0;
  answerDelayMs = 0;
  server = await startMessagesApiServer({
    script: (request) => {
      if (asksForSummary(request)) {
        return reply('Two greetings were exchanged.', { eventDelayMs: summaryDelayMs });
      }
      const last = request.messages.at(-1);
      const text = `you said: ${typeof last?.content === 'string' ? last.content : '?'}`;
      return reply(text, { eventDelayMs: answerDelayMs });
    },
  });
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await server.close();
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

function host(idleMs = 60_000): AgentHost {
  const created = createAgentHost({
    store,
    idleMs,
    workspace: directory,
    autoCommit: false,
    tools: [],
    anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
  });
  hosts.push(created);
  return created;
}

/** A session of two exchanges, at rest. */
async function twoExchanges(h: AgentHost, sessionId: string): Promise<void> {
  for (const text of ['hello', 'hi again']) {
    await h.send(sessionId, text);
    await (await h.agent(sessionId)).waitUntilIdle({ timeoutMs: 10_000 });
  }
}

describe('host.compact', () => {
  it('compacts a session between turns, and the store keeps it compacted', async () => {
    const h = host();
    const told: string[] = [];
    h.on('compacted', ({ sessionId, summarised }) => told.push(`${sessionId}: ${summarised}`));
    await twoExchanges(h, 'alice');
    await expect(h.compact('alice', 'Keep the greetings.')).resolves.toEqual({
      status: 'compacted',
      summary: 'Two greetings were exchanged.',
      summarised: 3,
      kept: 1,
    });
    expect(told).toEqual(['alice: 3']);
    expect(JSON.stringify(server.requests.at(-1)?.body.messages.at(-1))).toContain(
      'Also: Keep the greetings.',
    );
    await hosts[0]!.close();

    const again = host();
    const agent = await again.agent('alice');
    expect(agent.context.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: `${SUMMARY_HEADING}\n\nTwo greetings were exchanged.` }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'you said: hi again' }] },
    ]);
  });

  it('is interrupted through the host while the summary streams', async () => {
    const h = host();
    await twoExchanges(h, 'bob');
    const before = (await h.agent('bob')).context.messages;
    summaryDelayMs = 200;
    const ended = h.compact('bob');
    await expect
      .poll(async () => (await h.agent('bob')).stateValue)
      .toEqual({ WaitingForUserInput: 'Compacting' });
    await h.interrupt('bob');
    await expect(ended).resolves.toEqual({
      status: 'skipped',
      reason: 'it was interrupted',
    });
    expect((await h.agent('bob')).context.messages).toEqual(before);
  });

  it('keeps a compacting session in memory past its idle time, and lets it go after', async () => {
    const h = host(30);
    await twoExchanges(h, 'carol');
    summaryDelayMs = 40;
    await expect(h.compact('carol')).resolves.toMatchObject({ status: 'compacted' });
    await expect.poll(() => h.live()).toEqual([]);
  });

  it('refuses a compaction during a turn', async () => {
    const h = host();
    await twoExchanges(h, 'dave');
    answerDelayMs = 50;
    await h.send('dave', 'one more');
    await expect(h.compact('dave')).rejects.toMatchObject({ code: 'EVENT_NOT_ACCEPTED' });
    await (await h.agent('dave')).waitUntilIdle({ timeoutMs: 10_000 });
  });
});
