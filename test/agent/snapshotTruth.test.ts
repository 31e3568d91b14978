/**
 * The actor's snapshot is the truth (DESIGN section 4): Stately's own `@statelyai/inspect`, which
 * serialises what it is given a tick later, receives exactly the snapshots the chart produced,
 * and every snapshot an observer was handed stays as it was when it was handed over.
 */
import { createInspector } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

interface SeenSnapshot {
  value: unknown;
  messages: unknown;
}

/** The script of a turn with streamed text, a tool call and a second model call. */
const toolTurn = [
  reply(
    [
      { type: 'text', text: 'Let me read it.' },
      { type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } },
    ],
    { textChunkSize: 3 },
  ),
  reply('The notes say hello.', { textChunkSize: 4 }),
];

describe('the actor snapshot is the truth', () => {
  it("@statelyai/inspect's own inspector receives exact transcripts, though it reads them later", async () => {
    const atTheTime: SeenSnapshot[] = [];
    const received: SeenSnapshot[] = [];
    let rootSession: string | undefined;
    const stately = createInspector({
      send: (event) => {
        if (event.type === '@xstate.snapshot' && event.sessionId === rootSession) {
          const snapshot = event.snapshot as { value?: unknown; context?: { messages?: unknown } };
          received.push(
            structuredClone({ value: snapshot.value, messages: snapshot.context?.messages }),
          );
        }
      },
    });
    session = await startSession(toolTurn, {
      files: { 'notes.txt': 'hello' },
      autoCommit: false,
      inspect: (event: InspectionEvent) => {
        if (event.type === '@xstate.snapshot' && event.actorRef.sessionId === event.rootId) {
          rootSession = event.rootId;
          const snapshot = event.snapshot as unknown as {
            value: unknown;
            context: { messages: unknown };
          };
          atTheTime.push(
            structuredClone({ value: snapshot.value, messages: snapshot.context.messages }),
          );
        }
        stately.inspect.next?.(event);
      },
    });
    session.agent.send('What do the notes say?');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    // Stately serialises on a timer: let it catch up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(atTheTime.length).toBeGreaterThan(5);
    expect(received).toEqual(atTheTime);
    // The transcript grew in the snapshots Stately saw, never back in time.
    const lengths = received.map(({ messages }) => (messages as unknown[]).length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(lengths.at(-1)).toBe(4);
  });

  it('every snapshot a subscriber was handed stays as it was', async () => {
    const kept: { snapshot: unknown; copy: unknown }[] = [];
    session = await startSession(toolTurn, { files: { 'notes.txt': 'hello' }, autoCommit: false });
    session.agent.actor.subscribe((snapshot) => {
      kept.push({ snapshot: snapshot.context, copy: structuredClone(snapshot.context) });
    });
    session.agent.send('What do the notes say?');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(kept.length).toBeGreaterThan(5);
    for (const { snapshot, copy } of kept) expect(snapshot).toEqual(copy);
  });
});
