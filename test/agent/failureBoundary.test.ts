/**
 * The boundary `createAgent` puts around every invoked actor: a replacement that throws instead of
 * answering the chart is reported once (`ACTOR_FAILED`), the chart is given the event that stands
 * for the failure, and the turn goes on; a replacement that is not actor logic at all is refused
 * when the agent is created. Real agents against the local Messages API server.
 */
import { describe, expect, it } from 'vitest';
import { type EventObject, fromCallback, fromPromise } from 'xstate';
import {
  type AgentEvent,
  AgentStatechartError,
  createAgent,
  findTranscriptViolations,
  type LlmActorInput,
  type ToolActorInput,
} from '../../src/index.js';
import { overloaded, reply } from '../../src/testing/index.js';
import { type Session, sessionsClosedAfterEach } from './harness.js';
import { stubbornWrite } from './stubbornWrite.js';

const startSession = sessionsClosedAfterEach();

/** The ACTOR_FAILED diagnostics of a session, as the actor named and the event given. */
function actorFailures(session: Session): { message: string; event: unknown }[] {
  return session.notes.diagnostic
    .filter((diagnostic) => diagnostic.code === 'ACTOR_FAILED')
    .map(({ message, event }) => ({ message, event }));
}

/** The turn went on to its end, the agent still running, its transcript valid. */
function expectTurnEnded(session: Session, lastText: string): void {
  const { agent } = session;
  expect(agent.actor.getSnapshot().status).toBe('active');
  expect(agent.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
  expect(agent.context.messages.at(-1)).toEqual({
    role: 'assistant',
    content: [{ type: 'text', text: lastText }],
  });
  expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
  expect(session.notes.error.filter((error) => error.source === 'agent')).toEqual([]);
}

const readNotes = { type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } } as const;

describe('createAgent with a replacement actor that throws', () => {
  it('llm: the call fails as an LlmError of kind unknown, which is retried', async () => {
    let calls = 0;
    const llm = fromCallback<EventObject, LlmActorInput>(({ sendBack }) => {
      calls += 1;
      if (calls === 1) throw new Error('the model client exploded');
      sendBack({
        type: 'LlmCompleted',
        response: { message: { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] } },
      } satisfies AgentEvent);
    });
    const session = await startSession([], { actors: { llm } });
    session.agent.send('hi');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });

    const event: AgentEvent = {
      type: 'LlmError',
      error: { kind: 'unknown', message: 'the llm actor failed: the model client exploded' },
    };
    expect(actorFailures(session)).toEqual([
      {
        message: `the llm actor threw instead of answering the chart (the model client exploded); the chart was given LlmError in its place`,
        event,
      },
    ]);
    expect(session.states).toContain('Error');
    expect(session.notes.retry).toHaveLength(1);
    expect(calls).toBe(2);
    expectTurnEnded(session, 'Hello.');
  });

  it('tool: a rejected call is an error result the model reads', async () => {
    const tool = fromPromise<never, ToolActorInput>(() =>
      Promise.reject(new Error('the disk is on fire')),
    );
    const session = await startSession([reply([readNotes]), reply('The read failed.')], {
      actors: { tool },
      files: { 'notes.txt': 'buy milk\n' },
    });
    session.agent.send('read my notes');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });

    const callId = session.notes.toolStart[0]?.call.id;
    const message = "tool 'read_file' failed: the disk is on fire";
    expect(actorFailures(session)).toEqual([
      {
        message: expect.stringMatching(
          /^the tool actor threw .*the chart was given ToolCompleted/,
        ) as unknown,
        event: { type: 'ToolCompleted', callId, outcome: { status: 'error', error: { message } } },
      },
    ]);
    const results = session.server.requests[1]?.body.messages.at(-1)?.content;
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: callId, content: message, is_error: true },
    ]);
    expectTurnEnded(session, 'The read failed.');
  });

  it('tool: one that throws on the abort an interrupt sends still answers for its call', async () => {
    const tool = fromCallback<EventObject, ToolActorInput>(({ receive }) => {
      receive(() => {
        throw new Error('cannot stop now');
      });
    });
    const session = await startSession([reply([readNotes])], {
      actors: { tool },
      files: { 'notes.txt': 'buy milk\n' },
      toolGraceMs: 600_000,
    });
    const started = new Promise<string>((resolve) =>
      session.agent.on('toolStart', ({ call }) => resolve(call.id)),
    );
    session.agent.send('read my notes');
    const callId = await started;
    session.agent.interrupt();

    const message = "tool 'read_file' failed: cannot stop now";
    expect(actorFailures(session)).toEqual([
      {
        message: expect.stringMatching(/^the tool actor threw .*cannot stop now/) as unknown,
        event: { type: 'ToolCompleted', callId, outcome: { status: 'error', error: { message } } },
      },
    ]);
    // The aborted call settled with that answer: nothing is left to wait for.
    expect(session.agent.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    const results = session.agent.context.messages.at(-1)?.content;
    expect(JSON.stringify(results)).toContain(message);
    expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
  });

  it('postToolsHook: the hook is skipped, the user is told, and the model is called again', async () => {
    const postToolsHook = fromCallback(() => {
      throw new Error('git is not installed');
    });
    const session = await startSession(
      [
        reply([{ type: 'tool_use', name: 'write_file', input: { path: 'a.txt', content: 'a' } }]),
        reply('Written.'),
      ],
      { actors: { postToolsHook } },
    );
    session.agent.send('write a.txt');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });

    expect(actorFailures(session)).toEqual([
      {
        message: expect.stringMatching(
          /^the postToolsHook actor threw .*git is not installed/,
        ) as unknown,
        event: {
          type: 'PostToolsHookCompleted',
          actionTaken: false,
          error: 'git is not installed',
        },
      },
    ]);
    expect(session.notes.error).toEqual([
      {
        message: 'The post-tools hook failed and was skipped: git is not installed',
        source: 'hook',
      },
    ]);
    expect(session.states).toContain('PostToolsHook');
    expect(session.server.requests).toHaveLength(2);
    expectTurnEnded(session, 'Written.');
  });

  it('retryTimer: the wait ends at once and the model call is retried', async () => {
    const retryTimer = fromCallback(() => {
      throw new Error('no clock');
    });
    const session = await startSession([overloaded(), reply('Second time lucky.')], {
      actors: { retryTimer },
    });
    session.agent.send('hi');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });

    expect(actorFailures(session)).toEqual([
      {
        message: expect.stringMatching(/^the retryTimer actor threw .*no clock/) as unknown,
        event: { type: 'RetryTimeoutFired' },
      },
    ]);
    expect(session.server.requests).toHaveLength(2);
    expectTurnEnded(session, 'Second time lucky.');
  });

  it('toolGraceTimer: the grace period ends at once and an aborted call is answered', async () => {
    const stubborn = stubbornWrite();
    const toolGraceTimer = fromCallback(() => {
      throw new Error('no clock');
    });
    const session = await startSession(
      [reply([{ type: 'tool_use', name: 'stubborn_write', input: { path: 'a.txt' } }])],
      {
        actors: { toolGraceTimer },
        tools: [stubborn.tool],
        permissions: { mode: 'bypassPermissions' },
        toolGraceMs: 600_000,
      },
    );
    session.agent.send('write a.txt');
    await stubborn.begun;
    session.agent.interrupt();
    stubborn.finish();

    expect(actorFailures(session)).toEqual([
      {
        message: expect.stringMatching(/^the toolGraceTimer actor threw .*no clock/) as unknown,
        event: { type: 'ToolGraceExpired' },
      },
    ]);
    expect(session.agent.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    const last = session.agent.context.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(JSON.stringify(last?.content)).toMatch(/interrupted.*may or may not have taken effect/);
    expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
  });
});

describe('createAgent with a replacement that is not actor logic', () => {
  for (const name of ['llm', 'tool', 'postToolsHook', 'retryTimer', 'toolGraceTimer'] as const) {
    it(`refuses a plain function as actors.${name}, naming fromCallback`, () => {
      const create = () => createAgent({ actors: { [name]: () => undefined } as never });
      expect(create).toThrow(AgentStatechartError);
      expect(create).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          message: expect.stringMatching(
            new RegExp(
              `^actors\\.${name} must be XState actor logic, made with fromCallback.*a plain function`,
            ),
          ) as unknown,
        }),
      );
    });
  }

  it('refuses an actor the chart does not have, naming the ones it has', () => {
    expect(() =>
      createAgent({ actors: { model: fromCallback(() => undefined) } as never }),
    ).toThrow(
      /^actors\.model is not one of the chart's actors \(llm, tool, postToolsHook, retryTimer, toolGraceTimer, hook, subagent\)$/,
    );
  });
});
