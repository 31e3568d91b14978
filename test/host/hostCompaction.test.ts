/**
 * `host.compact`: a session of the host compacts between turns and the store keeps it so (a new
 * host reads it compacted); an interrupt through the host reaches a compaction under way (the
 * session's order of events is not held up by it); and a session is not dropped from memory
 * while it compacts, however short the host's idle time.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type AgentHost, SUMMARY_HEADING } from '../../src/index.js';
import { type MessagesRequestBody, reply } from '../../src/testing/index.js';
import { useHostSessions } from '../support/hostSessions.js';

/** How long the model takes over a summary, and over an answer, per streamed event. */
let summaryDelayMs = 0;
let answerDelayMs = 0;

function asksForSummary(body: MessagesRequestBody): boolean {
  const last = body.messages.at(-1)?.content;
  return Array.isArray(last) && JSON.stringify(last).includes('write a summary');
}

const sessions = useHostSessions(
  'host-compaction-',
  (request) => {
    if (asksForSummary(request)) {
      return reply('Two greetings were exchanged.', { eventDelayMs: summaryDelayMs });
    }
    const last = request.messages.at(-1);
    const text = `you said: ${typeof last?.content === 'string' ? last.content : '?'}`;
    return reply(text, { eventDelayMs: answerDelayMs });
  },
  { tools: [] },
);
const { host, hosts } = sessions;

beforeEach(() => {
  summaryDelayMs = 0;
  answerDelayMs = 0;
});

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
    expect(JSON.stringify(sessions.server().requests.at(-1)?.body.messages.at(-1))).toContain(
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
