/**
 * How streamed text travels in actor mode: the model call hands the chart its deltas once per
 * event-loop tick, the chart displays them, and listeners are told from that: nothing the user
 * saw is ever missing from the chart, not from `context`, not from an interrupt's kept message,
 * not from a snapshot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentAction, Message } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const STORY = 'Once upon a time a statechart kept every word the user had already read.';

/** Resolves once listeners have seen at least `chars` characters of text. */
function textSeen(s: Session, chars: number): Promise<string> {
  return new Promise((resolve) => {
    let seen = '';
    const stop = s.agent.on('text', ({ text }) => {
      seen += text;
      if (seen.length >= chars) {
        stop();
        resolve(seen);
      }
    });
  });
}

function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('streamed text in createAgent', () => {
  it('reaches listeners as the chart records it: what was shown is in the snapshot', async () => {
    session = await startSession([reply(STORY, { eventDelayMs: 30, textChunkSize: 6 })]);
    session.agent.send('tell me a story');
    const seen = await textSeen(session, 12);
    // Listeners are told from the chart's own DisplayMessage: the snapshot already has it.
    expect(session.agent.actor.getSnapshot().context.streamingText).toBe(seen);
    expect(session.agent.context.streamingText).toBe(seen);
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(session.notes.text.map(({ text }) => text).join('')).toBe(STORY);
    expect(textOf(session.agent.context.messages.at(-1))).toBe(STORY);
  });

  it('an interrupt keeps exactly the text the user saw', async () => {
    session = await startSession([
      reply(STORY, { eventDelayMs: 30, textChunkSize: 5 }),
      reply('Understood.'),
    ]);
    session.agent.send('tell me a story');
    await textSeen(session, 20);
    session.agent.interrupt();
    const shown = session.notes.text.map(({ text }) => text).join('');
    expect(shown.length).toBeGreaterThanOrEqual(20);
    expect(shown.length).toBeLessThan(STORY.length);
    expect(session.agent.state).toBe('WaitingForUserInput');
    expect(textOf(session.agent.context.messages.at(-1))).toBe(shown);
  });

  it('a snapshot taken mid-stream holds every shown character', async () => {
    session = await startSession([reply(STORY, { eventDelayMs: 30, textChunkSize: 7 })]);
    session.agent.send('tell me a story');
    const seen = await textSeen(session, 14);
    const stored = session.agent.snapshot();
    expect(stored.state).toBe('CallingLlm');
    expect(stored.context.streamingText).toBe(seen);
  });

  it("mirrors shown text to 'action' listeners as DisplayMessage, once", async () => {
    session = await startSession([reply(STORY, { textChunkSize: 9 })]);
    session.agent.send('tell me a story');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    const displayed = session.notes.action
      .filter((action): action is Extract<AgentAction, { type: 'DisplayMessage' }> => {
        return action.type === 'DisplayMessage';
      })
      .map(({ text }) => text)
      .join('');
    expect(displayed).toBe(STORY);
  });

  it('deltas of one tick reach the chart as one event, and every delta as some event', async () => {
    const received: string[] = [];
    // A fast stream: the SDK parses many deltas per network read.
    session = await startSession([reply(STORY, { textChunkSize: 2 })], {
      inspect: (event) => {
        if (event.type === '@xstate.event' && event.event.type === 'LlmTextDelta') {
          received.push((event.event as unknown as { content: string }).content);
        }
      },
    });
    session.agent.send('tell me a story');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(received.join('')).toBe(STORY);
    expect(received.length).toBeLessThan(Math.ceil(STORY.length / 2));
  });
});
