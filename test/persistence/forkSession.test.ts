/**
 * Forking a stored session: a new session from another's history, up to its latest rest point
 * or a given one, stored in a real SQLite file, going on its own way while the original is left
 * as it was; and the command line's `sessions fork`.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentStatechartError,
  createAgent,
  forkSession,
  type Message,
  SessionCore,
} from '../../src/index.js';
import { runSessionsCommand } from '../../src/cli/sessionsCommand.js';
import { openSession } from '../../src/persistence/index.js';
import { useTempStore } from '../support/tempStore.js';

const temp = useTempStore('fork-');

const input = (content: string) => ({
  type: 'UserInput' as const,
  message: { role: 'user' as const, content },
});
const answer = (text: string) => ({
  type: 'LlmCompleted' as const,
  response: {
    message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }] },
    stopReason: 'end_turn' as const,
  },
});

/** Session `id`, after a turn per answer, and left in `CallingLlm` by `pending` input. */
async function sessionWith(id: string, answers: string[], pending?: string): Promise<SessionCore> {
  const session = await SessionCore.open(temp.store, id, { claim: true });
  for (const [index, text] of answers.entries()) {
    await session.handleEvent(input(`question ${index + 1}`));
    await session.handleEvent(answer(text));
  }
  if (pending !== undefined) await session.handleEvent(input(pending));
  return session;
}

async function refusal(run: Promise<unknown>): Promise<AgentStatechartError> {
  return run.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as AgentStatechartError,
  );
}

describe('forkSession', () => {
  it('copies the history up to the latest rest point, and the fork goes its own way', async () => {
    const original = await sessionWith('s1', ['one', 'two']);
    const head = (await temp.store.load('s1'))!.head;
    const fork = await forkSession(temp.store, 's1', 's2');
    expect(fork).toEqual({ sessionId: 's2', messageCount: 4, restPoints: [0, 2, 4] });

    const forked = await SessionCore.open(temp.store, 's2');
    expect(forked.created).toBe(false);
    expect(forked.core.context.messages).toEqual(original.core.context.messages);
    expect((await temp.store.load('s2'))!.header.metadata).toEqual({
      forkedFrom: { sessionId: 's1', messageCount: 4 },
    });
    const [send] = await forked.handleEvent(input('question 3, in the fork'));
    expect(send).toMatchObject({ type: 'SendLlmRequest' });
    expect((send as { request: { messages: Message[] } }).request.messages).toHaveLength(5);
    // The original was only read.
    expect((await temp.store.load('s1'))!.head).toBe(head);
    expect((await SessionCore.open(temp.store, 's1')).core.context.messages).toHaveLength(4);
  });

  it('forks a session in the middle of a turn at the rest point before that turn', async () => {
    await sessionWith('s1', ['one'], 'question 2');
    const fork = await forkSession(temp.store, 's1', 's2');
    expect(fork.messageCount).toBe(2);
    expect(fork.restPoints).toEqual([0, 2]);
    const forked = await SessionCore.open(temp.store, 's2');
    expect(forked.core.state).toBe('WaitingForUserInput');
    expect(forked.resume).toBeUndefined();
  });

  it('forks at an earlier rest point it is given, and refuses one that is none, saying which are', async () => {
    await sessionWith('s1', ['one', 'two', 'three']);
    expect((await forkSession(temp.store, 's1', 'early', { at: 2 })).messageCount).toBe(2);
    expect((await SessionCore.open(temp.store, 'early')).core.context.messages).toEqual([
      { role: 'user', content: 'question 1' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
    ]);
    const error = await refusal(forkSession(temp.store, 's1', 'odd', { at: 3 }));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(
      "session 's1' was not at rest after 3 messages; it can be forked at 0, 2, 4, 6",
    );
    expect(await temp.store.load('odd')).toBeUndefined();
  });

  it('refuses a new id that is taken and an original that does not exist', async () => {
    await sessionWith('s1', ['one']);
    await sessionWith('s2', ['two']);
    expect((await refusal(forkSession(temp.store, 's1', 's2'))).code).toBe('SESSION_EXISTS');
    expect((await refusal(forkSession(temp.store, 'nobody', 's3'))).code).toBe('SESSION_NOT_FOUND');
    expect(await temp.store.load('s3')).toBeUndefined();
  });
});

describe('seeding a new session with messages', () => {
  it('is done by one caller only when two seed the same new id at once', async () => {
    const seed = (content: string) =>
      openSession(temp.store, 'racy', { messages: [{ role: 'user', content }] });
    const results = await Promise.allSettled([seed('first'), seed('second')]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const [refused] = results.filter((result) => result.status === 'rejected');
    expect(['SESSION_EXISTS', 'INVALID_OPTION']).toContain(
      ((refused as PromiseRejectedResult).reason as AgentStatechartError).code,
    );
    const winner = results.findIndex((result) => result.status === 'fulfilled');
    expect((await SessionCore.open(temp.store, 'racy')).core.context.messages).toEqual([
      { role: 'user', content: winner === 0 ? 'first' : 'second' },
    ]);
  });
});

describe('createAgent with a store and messages', () => {
  const transcript: Message[] = [
    { role: 'user', content: 'Imported question' },
    { role: 'assistant', content: [{ type: 'text', text: 'Imported answer' }] },
  ];

  it('seeds a session created now, stored before ready resolves', async () => {
    const agent = createAgent({
      workspace: temp.directory,
      tools: [],
      autoCommit: false,
      store: temp.store,
      sessionId: 'imported',
      messages: transcript,
    });
    await agent.ready;
    await agent.shutdown();
    expect((await SessionCore.open(temp.store, 'imported')).core.context.messages).toEqual(
      transcript,
    );
  });

  it('refuses them for a session that has a log already: ready rejects, and nothing changes', async () => {
    const original = await sessionWith('s1', ['one']);
    const before = await temp.store.load('s1');
    const agent = createAgent({
      workspace: temp.directory,
      tools: [],
      autoCommit: false,
      store: temp.store,
      sessionId: 's1',
      messages: transcript,
    });
    const error = await refusal(agent.ready);
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(/has a log already.*fork it with forkSession/);
    await agent.shutdown();
    expect(await temp.store.load('s1')).toEqual(before);
    // Nor was the session claimed: its writer goes on.
    await expect(original.handleEvent(input('still mine'))).resolves.toHaveLength(1);
  });
});

describe('agent-statechart sessions fork', () => {
  function io() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
  }

  it('forks a stored session into a new one, and says where', async () => {
    await sessionWith('s1', ['one', 'two']);
    const printed = io();
    expect(
      await runSessionsCommand(['fork', 's1', 's2', '--at', '2', '--store', temp.path], printed.io),
    ).toBe(0);
    expect(printed.out).toEqual([
      `forked session s1 into s2 at 2 messages (in ${temp.path}); resume it with run --session s2`,
    ]);
    expect((await SessionCore.open(temp.store, 's2')).core.context.messages).toHaveLength(2);
  });

  it('says why it cannot, and what it takes', async () => {
    await sessionWith('s1', ['one']);
    const odd = io();
    expect(
      await runSessionsCommand(['fork', 's1', 's2', '--at', '1', '--store', temp.path], odd.io),
    ).toBe(1);
    expect(odd.err).toEqual([
      "session 's1' was not at rest after 1 messages; it can be forked at 0, 2",
    ]);
    const short = io();
    expect(await runSessionsCommand(['fork', 's1', '--store', temp.path], short.io)).toBe(1);
    expect(short.err).toEqual([
      'usage: agent-statechart sessions fork ID NEW_ID [--at N] [--workspace DIR | --store PATH]',
    ]);
    const missing = io();
    expect(
      await runSessionsCommand(['fork', 'nobody', 's3', '--store', temp.path], missing.io),
    ).toBe(1);
    expect(missing.err).toEqual([`there is no session 'nobody' in ${temp.path}`]);
  });
});
