/**
 * `llmStart` and `llmEnd` bracket every attempt of a model call, so a listener can keep exactly
 * the text the transcript keeps: the text since the last `llmStart` is kept when `llmEnd` says
 * `completed` or `interrupted`, and dropped on a new `llmStart` or on `llmEnd` `failed`. Real
 * agents against the local Messages API server, with a retry after text had streamed and an
 * interrupt mid-stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';
import { assistantTexts, textSeen, transcribe } from './modelCallText.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const STORY = 'Once upon a time a statechart kept every word the user had already read.';

describe("a listener of the agent's llmStart, text and llmEnd", () => {
  it('rebuilds the transcript of a turn whose model call failed mid-stream and was retried', async () => {
    session = await startSession([
      // Text streams, then the API fails mid-stream with an overloaded error.
      reply(STORY, {
        eventDelayMs: 30,
        textChunkSize: 5,
        cut: { afterEvents: 8, by: 'error_event', errorType: 'overloaded_error' },
      }),
      reply(STORY, { textChunkSize: 7 }),
    ]);
    const seen = transcribe(session.agent);
    session.agent.send('tell me a story');
    await session.agent.waitUntilIdle({ timeoutMs: 20_000 });

    expect(session.notes.retry).toHaveLength(1);
    expect(seen.calls).toEqual(['start 1', 'end failed', 'start 2', 'end completed']);
    // The failed attempt had shown text; none of it is in the transcript.
    expect(seen.dropped).toHaveLength(1);
    expect(seen.dropped[0]!.length).toBeGreaterThan(0);
    expect(STORY.startsWith(seen.dropped[0]!)).toBe(true);
    expect(seen.stray).toEqual([]);
    expect(seen.kept).toEqual([STORY]);
    expect(seen.kept).toEqual(assistantTexts(session.agent.context.messages));
  });

  it('rebuilds the transcript of a turn interrupted mid-stream, and of the turn after it', async () => {
    session = await startSession(
      [
        reply(STORY, { eventDelayMs: 30, textChunkSize: 5 }),
        reply([
          { type: 'text', text: 'Reading it now.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } },
        ]),
        reply('It says: buy milk.'),
      ],
      { files: { 'notes.txt': 'buy milk\n' } },
    );
    const seen = transcribe(session.agent);
    session.agent.send('tell me a story');
    await textSeen(session.agent, 15);
    session.agent.interrupt();
    session.agent.send('then read notes.txt');
    await session.agent.waitUntilIdle({ timeoutMs: 20_000 });

    expect(seen.calls).toEqual([
      'start 1',
      'end interrupted',
      'start 1',
      'end completed',
      'start 1',
      'end completed',
    ]);
    expect(seen.dropped).toEqual([]);
    expect(seen.stray).toEqual([]);
    const interrupted = seen.kept[0]!;
    expect(interrupted.length).toBeGreaterThanOrEqual(15);
    expect(interrupted.length).toBeLessThan(STORY.length);
    expect(STORY.startsWith(interrupted)).toBe(true);
    expect(seen.kept).toEqual([interrupted, 'Reading it now.', 'It says: buy milk.']);
    expect(seen.kept).toEqual(assistantTexts(session.agent.context.messages));
  });
});
