/**
 * How streamed text travels in actor mode: listeners get each delta the moment the SDK parses
 * it, the chart gets its copy in batches (on demand, or per tick while inspected), and nothing
 * the user saw is ever missing from the chart: not from `context`, not from an interrupt's kept
 * message, not from a snapshot.
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
  it('reaches listeners as it streams, before the chart has its copy', async () => {
    session = await startSession([reply(STORY, { eventDelayMs: 30, textChunkSize: 6 })]);
    session.agent.send('tell me a story');
    const seen = await textSeen(session, 12);
    // Not inspected: the chart catches up only when something needs it.
    expect(session.agent.actor.getSnapshot().context.streamingText).toBe('');
    // Reading the context is such a need.
    expect(session.agent.context.streamingText).toBe(seen);
    expect(session.agent.actor.getSnapshot().context.streamingText).toBe(seen);
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(session.notes.text.map(({ text }) => text).join('')).toBe(STORY);
    // Each SSE delta was its own notification (the stream chunks by 6 characters).
    expect(session.notes.text.length).toBe(Math.ceil(STORY.length / 6));
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

  it('while inspected, the chart follows the stream tick by tick', async () => {
    const microsteps: string[] = [];
    session = await startSession([reply(STORY, { eventDelayMs: 40, textChunkSize: 6 })], {
      inspect: (event) => {
        if (event.type === '@xstate.event' && event.event.type === 'LlmTextDelta') {
          microsteps.push((event.event as unknown as { content: string }).content);
        }
      },
    });
    session.agent.send('tell me a story');
    const seen = await textSeen(session, 6);
    await new Promise((resolve) => setImmediate(resolve));
    // Without reading through the agent, the actor's own snapshot has the text.
    expect(session.agent.actor.getSnapshot().context.streamingText).toBe(seen);
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(microsteps.join('')).toBe(STORY);
    expect(microsteps.length).toBeGreaterThan(1);
  });
});
