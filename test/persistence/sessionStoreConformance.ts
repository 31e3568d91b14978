/**
 * The conformance suite every session store passes: memory, SQLite and PostgreSQL run these same
 * tests. A store is opened fresh for each test; `corrupt` (where a store can do it) damages stored
 * data the way a disk or a hand-edited database would.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentEvent, AgentStatechartError } from '../../src/index.js';
import type {
  SessionStore,
  SessionWrite,
  StoredEntry,
} from '../../src/persistence/sessionStore.js';
import { checkpoint, event, inputText, userInput } from './storedEntries.js';

export interface StoreUnderTest {
  open(): Promise<SessionStore>;
  /** Damages one stored value of a session so it can no longer be read. */
  corrupt?(store: SessionStore, sessionId: string, what: 'entry' | 'checkpoint'): Promise<void>;
  /** Called after each test (close the store first). */
  cleanup?(): Promise<void>;
}

/**
 * Registers the hooks that open `subject`'s store before each test and, after it, close it and
 * clean up; `opened` is told each test's store.
 */
export function useStoreUnderTest(
  subject: Pick<StoreUnderTest, 'open' | 'cleanup'>,
  opened: (store: SessionStore) => void,
): void {
  let store: SessionStore | undefined;
  beforeEach(async () => {
    store = await subject.open();
    opened(store);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await subject.cleanup?.();
  });
}

const header = (sessionId: string, createdAt = 1_000) => ({
  sessionId,
  chartVersion: 'chart-1',
  createdAt,
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AgentStatechartError);
  expect((error as AgentStatechartError).code).toBe(code);
}

export function describeSessionStore(name: string, subject: StoreUnderTest): void {
  describe(`${name} (session store conformance)`, () => {
    let store: SessionStore;
    useStoreUnderTest(subject, (opened) => (store = opened));

    it('creates a session with an empty log, and refuses to create it twice', async () => {
      await store.create({ ...header('s1'), metadata: { title: 'First' } });
      const loaded = await store.load('s1');
      expect(loaded).toEqual({
        header: { ...header('s1'), metadata: { title: 'First' } },
        head: 0,
        checkpoint: undefined,
        transcript: [],
        entries: [],
      });
      await expectCode(store.create(header('s1')), 'SESSION_EXISTS');
    });

    it('appends entries in order and loads them back exactly', async () => {
      // Text beyond ASCII, and JSON nested the way a tool's output may be.
      const toolOutcome: AgentEvent = {
        type: 'ToolCompleted',
        callId: 'toolu_1',
        outcome: {
          status: 'success',
          output: { note: 'ünïcødé ✓', nested: { list: [1, null, true] } },
        },
      };
      await store.create(header('s1'));
      await store.append('s1', { after: 0, entries: [event(1, userInput('hi'))] });
      await store.append('s1', {
        after: 1,
        entries: [
          { seq: 2, at: 3_000, kind: 'started', data: { effect: 'llm' } },
          event(3, toolOutcome),
        ],
      });
      const loaded = await store.load('s1');
      expect(loaded?.head).toBe(3);
      expect(loaded?.entries).toEqual([
        event(1, userInput('hi')),
        { seq: 2, at: 3_000, kind: 'started', data: { effect: 'llm' } },
        event(3, toolOutcome),
      ]);
      expect(await store.entries('s1', { after: 1, limit: 1 })).toEqual([
        { seq: 2, at: 3_000, kind: 'started', data: { effect: 'llm' } },
      ]);
    });

    it('loads from the latest checkpoint: the records, the entries they point at, and the tail', async () => {
      await store.create(header('s1'));
      await store.append('s1', {
        after: 0,
        entries: [
          event(1, userInput('one')),
          event(2, { type: 'SetPermissionMode', mode: 'plan' }),
          event(3, userInput('two')),
        ],
        transcript: [
          { index: 0, refs: [1], body: { from: 'message', ref: 1 } },
          { index: 1, refs: [3], body: { from: 'message', ref: 3 } },
        ],
        checkpoint: checkpoint(3, 'WaitingForUserInput', 2),
      });
      await store.append('s1', { after: 3, entries: [event(4, userInput('three'))] });
      const loaded = await store.load('s1');
      expect(loaded?.checkpoint).toEqual(checkpoint(3, 'WaitingForUserInput', 2));
      expect(loaded?.transcript.map((record) => record.index)).toEqual([0, 1]);
      // Entry 2 is neither referenced nor after the checkpoint: it is not read.
      expect(loaded?.entries.map((entry) => entry.seq)).toEqual([1, 3, 4]);
      // A later checkpoint replaces the earlier one.
      await store.append('s1', {
        after: 4,
        entries: [],
        transcript: [{ index: 2, refs: [4], body: { from: 'message', ref: 4 } }],
        checkpoint: checkpoint(4, 'CallingLlm', 3, 1),
      });
      const again = await store.load('s1');
      expect(again?.checkpoint).toEqual(checkpoint(4, 'CallingLlm', 3, 1));
      expect(again?.transcript).toHaveLength(3);
      expect(again?.entries.map((entry) => entry.seq)).toEqual([1, 3, 4]);
    });

    it('replaces records under the same index, and reads none past a shorter transcript (a compaction)', async () => {
      await store.create(header('s1'));
      await store.append('s1', {
        after: 0,
        entries: [
          event(1, userInput('one')),
          event(2, userInput('two')),
          event(3, userInput('three')),
        ],
        transcript: [1, 2, 3].map((seq) => ({
          index: seq - 1,
          refs: [seq],
          body: { from: 'message', ref: seq },
        })),
        checkpoint: checkpoint(3, 'WaitingForUserInput', 3),
      });
      // The transcript became a summary and the latest message: two records, written again.
      const summary = { role: 'user' as const, content: 'summary of one and two' };
      await store.append('s1', {
        after: 3,
        entries: [event(4, userInput('four'))],
        transcript: [
          { index: 0, refs: [], body: { message: summary } },
          { index: 1, refs: [4], body: { from: 'message', ref: 4 } },
        ],
        checkpoint: checkpoint(4, 'WaitingForUserInput', 2),
      });
      const loaded = await store.load('s1');
      expect(loaded?.transcript).toEqual([
        { index: 0, refs: [], body: { message: summary } },
        { index: 1, refs: [4], body: { from: 'message', ref: 4 } },
      ]);
      // Neither the entries the old records pointed at nor the third record are read.
      expect(loaded?.entries.map(inputText)).toEqual(['four']);
      // The whole log is still there.
      expect((await store.entries('s1')).map(inputText)).toEqual(['one', 'two', 'three', 'four']);
    });

    it('lets exactly one of many concurrent appends after the same head win', async () => {
      await store.create(header('s1'));
      await store.append('s1', { after: 0, entries: [event(1, userInput('base'))] });
      const attempts = Array.from({ length: 8 }, (_, writer) =>
        store.append('s1', { after: 1, entries: [event(2, userInput(`writer ${writer}`))] }),
      );
      const outcomes = await Promise.allSettled(attempts);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const outcome of lost) {
        expect(outcome.reason).toMatchObject({
          code: 'SESSION_CONFLICT',
        });
      }
      const loaded = await store.load('s1');
      expect(loaded?.head).toBe(2);
      expect(loaded?.entries).toHaveLength(2);
    });

    it('writes nothing of a write that fails part-way (a torn write)', async () => {
      await store.create(header('s1'));
      await store.append('s1', { after: 0, entries: [event(1, userInput('kept'))] });
      const torn: SessionWrite = {
        after: 1,
        entries: [
          event(2, userInput('a')),
          event(3, userInput('b')),
          // A value JSON cannot hold, as a broken caller might pass.
          event(4, { ...userInput('c'), bad: 10n } as AgentEvent),
        ],
        checkpoint: checkpoint(4, 'WaitingForUserInput', 0),
      };
      await expectCode(store.append('s1', torn), 'INVALID_OPTION');
      const loaded = await store.load('s1');
      expect(loaded?.head).toBe(1);
      expect(loaded?.checkpoint).toBeUndefined();
      expect(loaded?.entries).toEqual([event(1, userInput('kept'))]);
      // The log goes on from where it really ends.
      await store.append('s1', { after: 1, entries: [event(2, userInput('next'))] });
      expect((await store.load('s1'))?.head).toBe(2);
    });

    it('refuses malformed writes with a clear error', async () => {
      await store.create(header('s1'));
      await expectCode(
        store.append('s1', { after: 0, entries: [event(2, userInput('gap'))] }),
        'INVALID_OPTION',
      );
      await expectCode(
        store.append('s1', {
          after: 0,
          entries: [event(1, userInput('x'))],
          checkpoint: checkpoint(5, 'WaitingForUserInput', 0),
        }),
        'INVALID_OPTION',
      );
      await expectCode(
        store.append('s1', {
          after: 0,
          entries: [event(1, userInput('x'))],
          transcript: [{ index: 0, refs: [7], body: { from: 'message', ref: 7 } }],
        }),
        'INVALID_OPTION',
      );
      expect((await store.load('s1'))?.head).toBe(0);
    });

    it('keeps what was written, whatever the caller changes afterwards', async () => {
      await store.create(header('s1'));
      const data = userInput('original');
      await store.append('s1', { after: 0, entries: [event(1, data)] });
      data.message.content = 'changed';
      expect((await store.load('s1'))?.entries[0]?.data).toEqual(userInput('original'));
    });

    it('answers for unknown sessions and refuses unusable ids', async () => {
      expect(await store.load('nobody')).toBeUndefined();
      expect(await store.delete('nobody')).toBe(false);
      await expectCode(store.append('nobody', { after: 0, entries: [] }), 'SESSION_NOT_FOUND');
      await expectCode(store.entries('nobody'), 'SESSION_NOT_FOUND');
      await expectCode(store.claim('nobody'), 'SESSION_NOT_FOUND');
      await expectCode(store.create(header('')), 'INVALID_OPTION');
      await expectCode(store.load('bad\u0000id'), 'INVALID_OPTION');
    });

    it('lists sessions, most recently updated first, and deletes one with everything in it', async () => {
      await store.create(header('old', 1_000));
      await store.create(header('new', 1_500));
      await store.append('old', { after: 0, entries: [event(1, userInput('a'), 5_000)] });
      await store.append('new', {
        after: 0,
        entries: [event(1, userInput('b'), 4_000)],
        transcript: [{ index: 0, refs: [1], body: { from: 'message', ref: 1 } }],
        checkpoint: checkpoint(1, 'CallingLlm', 1),
      });
      const list = await store.list();
      expect(list.map((session) => session.sessionId)).toEqual(['old', 'new']);
      expect(list[1]).toMatchObject({
        sessionId: 'new',
        createdAt: 1_500,
        updatedAt: 4_000,
        head: 1,
        state: 'CallingLlm',
        messageCount: 1,
      });
      expect(await store.list({ limit: 1 })).toHaveLength(1);
      expect(await store.delete('old')).toBe(true);
      expect(await store.load('old')).toBeUndefined();
      expect((await store.list()).map((session) => session.sessionId)).toEqual(['new']);
      // The id can be used again, from an empty log.
      await store.create(header('old'));
      expect((await store.load('old'))?.head).toBe(0);
    });

    it('fences writers: after a newer claim, an older claim can no longer write', async () => {
      await store.create(header('s1'));
      const first = await store.claim('s1');
      await store.append('s1', { after: 0, epoch: first, entries: [event(1, userInput('a'))] });
      const second = await store.claim('s1');
      expect(second).toBeGreaterThan(first);
      await expectCode(
        store.append('s1', { after: 1, epoch: first, entries: [event(2, userInput('late'))] }),
        'SESSION_FENCED',
      );
      await store.append('s1', { after: 1, epoch: second, entries: [event(2, userInput('b'))] });
      const loaded = await store.load('s1');
      expect(loaded?.entries.map(inputText)).toEqual(['a', 'b']);
    });

    it('holds a session of 10,000 messages and loads it from its checkpoint', async () => {
      await store.create(header('long'));
      let head = 0;
      for (let batch = 0; batch < 20; batch++) {
        const entries: StoredEntry[] = [];
        for (let index = 0; index < 500; index++) {
          head += 1;
          entries.push(event(head, userInput(`message ${head}`)));
        }
        await store.append('long', {
          after: head - 500,
          entries,
          transcript: entries.map((entry) => ({
            index: entry.seq - 1,
            refs: [entry.seq],
            body: { from: 'message', ref: entry.seq },
          })),
          checkpoint: checkpoint(head, 'WaitingForUserInput', head),
        });
      }
      const loaded = await store.load('long');
      expect(loaded?.head).toBe(10_000);
      expect(loaded?.transcript).toHaveLength(10_000);
      expect(loaded?.entries).toHaveLength(10_000);
      expect(loaded?.entries[9_999]?.data).toEqual(userInput('message 10000'));
    });

    it.runIf(subject.corrupt !== undefined)(
      'reports data it cannot read as SESSION_CORRUPT, and loses nothing',
      async () => {
        await store.create(header('broken'));
        await store.create(header('fine'));
        for (const sessionId of ['broken', 'fine']) {
          await store.append(sessionId, {
            after: 0,
            entries: [event(1, userInput('a')), event(2, userInput('b'))],
            transcript: [{ index: 0, refs: [1], body: { from: 'message', ref: 1 } }],
            checkpoint: checkpoint(2, 'WaitingForUserInput', 1),
          });
        }
        await subject.corrupt!(store, 'broken', 'entry');
        const error = await store.load('broken').then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toMatchObject({ code: 'SESSION_CORRUPT' });
        expect(String((error as Error).message)).toMatch(/broken.*entry/);
        // The other session, and the readable part of this one, are untouched.
        expect((await store.load('fine'))?.entries.map((entry) => entry.seq)).toEqual([1]);
        expect((await store.list()).map((session) => session.sessionId).sort()).toEqual([
          'broken',
          'fine',
        ]);
        await subject.corrupt!(store, 'fine', 'checkpoint');
        await expectCode(store.load('fine'), 'SESSION_CORRUPT');
        expect(await store.entries('fine')).toHaveLength(2);
      },
    );
  });
}
