/**
 * Broken actor implementations (a bug in a user-supplied actor) become state and data: the chart
 * has no handlers for XState's actor errors, so the boundary around each actor
 * (`withFailureBoundary`) turns a throw into the chart event that stands for the failure, the
 * model gets an answer, the turn goes on, and the failure is reported once. Without the boundary
 * XState's own rule applies: the agent machine fails with its child.
 */
import { describe, expect, it } from 'vitest';
import {
  type Actor,
  type AnyActorLogic,
  type AnyEventObject,
  createActor,
  fromCallback,
  fromPromise,
  waitFor,
} from 'xstate';
import { type ActorFailureHandler, withFailureBoundary } from '../../src/actors/index.js';
import {
  type AgentAction,
  type AgentDiagnostic,
  type AgentEvent,
  type AgentMachine,
  type AgentNotifications,
  type AgentStateValue,
  agentMachine,
  createAgent,
  findTranscriptViolations,
  type LlmActorInput,
  type PostToolsHookInput,
  type RetryTimerInput,
  type ToolActorInput,
  type ToolGraceTimerInput,
  STARTUP_DIAGNOSTIC_CODES,
  type StartupDiagnostic,
} from '../../src/index.js';
import { atRest } from '../../src/machine/index.js';
import { call, completed } from '../support/events.js';

/** A hang guard only: the doubles answer within milliseconds. */
const HANG_GUARD = { timeout: 30_000 };

/** An LLM double that answers each attempt with the next reply, as the real one does. */
function llmReplying(...replies: AgentEvent[]) {
  return fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
    const event = replies.shift() ?? completed('done');
    sendBack({ type: 'LlmStarted' } satisfies AgentEvent);
    const timer = setTimeout(() => sendBack(event), 1);
    return () => clearTimeout(timer);
  });
}

const toolSucceeding = fromCallback<AnyEventObject, ToolActorInput>(({ input, sendBack }) => {
  const timer = setTimeout(
    () =>
      sendBack({
        type: 'ToolCompleted',
        callId: input.call.id,
        outcome: { status: 'success', output: 'ok' },
      } satisfies AgentEvent),
    1,
  );
  return () => clearTimeout(timer);
});

const timerFiringAtOnce = fromCallback<AnyEventObject, RetryTimerInput>(({ sendBack }) => {
  const timer = setTimeout(() => sendBack({ type: 'RetryTimeoutFired' } satisfies AgentEvent), 1);
  return () => clearTimeout(timer);
});

/** A tool that never finishes on its own (an interrupt aborts it, and it never says how). */
const toolHanging = fromCallback<AnyEventObject, ToolActorInput>(() => undefined);

type ActorName = 'llm' | 'tool' | 'postToolsHook' | 'retryTimer' | 'toolGraceTimer';

/** The chart with `actors`, each behind the boundary, which hands failures to the chart. */
function startBehindBoundary(actors: Partial<Record<ActorName, AnyActorLogic>>) {
  const failures: Array<Parameters<ActorFailureHandler>[0]> = [];
  const emitted: AgentAction[] = [];
  const running: { actor?: Actor<AgentMachine> } = {};
  const onFailure: ActorFailureHandler = (failure) => {
    failures.push(failure);
    running.actor?.send(failure.event);
  };
  const guarded: Partial<Record<ActorName, AnyActorLogic>> = {};
  for (const [name, logic] of Object.entries(actors) as Array<[ActorName, AnyActorLogic]>) {
    guarded[name] = withFailureBoundary(name, logic, onFailure);
  }
  const actor = createActor(agentMachine.provide({ actors: guarded }), { input: {} });
  running.actor = actor;
  actor.on('*', (action) => emitted.push(action));
  actor.start();
  actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
  return { actor, failures, emitted };
}

/** Idle after `responses` model answers. */
const idleAfter =
  (responses: number) =>
  (snapshot: {
    value: AgentStateValue;
    context: Parameters<typeof atRest>[1] & { usage: { calls: number } };
  }) =>
    atRest(snapshot.value, snapshot.context) && snapshot.context.usage.calls === responses;

describe('an actor that throws, behind the failure boundary', () => {
  it('a tool actor becomes an error result naming the tool; the model reads it and the turn goes on', async () => {
    const tool = fromCallback<AnyEventObject, ToolActorInput>(({ input }) => {
      throw new Error(`disk gone while running ${input.call.name}`);
    });
    const { actor, failures } = startBehindBoundary({
      llm: llmReplying(completed(null, [call('t1', 'read_file')]), completed('ok')),
      tool,
    });
    await waitFor(actor, idleAfter(2), HANG_GUARD);
    const results = actor.getSnapshot().context.messages[2];
    expect(results?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: "tool 'read_file' failed: disk gone while running read_file",
        is_error: true,
      },
    ]);
    expect(failures).toEqual([
      {
        actor: 'tool',
        reason: 'disk gone while running read_file',
        event: {
          type: 'ToolCompleted',
          callId: 't1',
          outcome: {
            status: 'error',
            error: { message: "tool 'read_file' failed: disk gone while running read_file" },
          },
        },
      },
    ]);
    // The failed actor was stopped when its call was answered: nothing of it is left behind.
    expect(Object.keys(actor.getSnapshot().children)).toEqual([]);
    expect(actor.getSnapshot().status).toBe('active');
    actor.stop();
  });

  it('a tool actor that rejects (a fromPromise) is answered the same way', async () => {
    const tool = fromPromise<never, ToolActorInput>(() => Promise.reject(new Error('EACCES')));
    const { actor, failures } = startBehindBoundary({
      llm: llmReplying(completed(null, [call('t1', 'write_file')]), completed('ok')),
      tool,
    });
    await waitFor(actor, idleAfter(2), HANG_GUARD);
    expect(actor.getSnapshot().context.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: "tool 'write_file' failed: EACCES",
        is_error: true,
      },
    ]);
    expect(failures.map(({ actor: name, reason }) => ({ name, reason }))).toEqual([
      { name: 'tool', reason: 'EACCES' },
    ]);
    actor.stop();
  });

  it('an llm actor becomes a retryable LlmError, and the next attempt answers', async () => {
    let attempts = 0;
    const llm = fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
      attempts += 1;
      if (attempts === 1) throw new Error('socket factory exploded');
      const timer = setTimeout(() => sendBack(completed('recovered')), 1);
      return () => clearTimeout(timer);
    });
    const { actor, failures, emitted } = startBehindBoundary({
      llm,
      retryTimer: timerFiringAtOnce,
    });
    await waitFor(actor, idleAfter(1), HANG_GUARD);
    expect(attempts).toBe(2);
    expect(failures.map((failure) => failure.event)).toEqual([
      {
        type: 'LlmError',
        error: { kind: 'unknown', message: 'the llm actor failed: socket factory exploded' },
      },
    ]);
    expect(emitted.map((action) => action.type)).toEqual([
      'WaitForInput',
      'SendLlmRequest',
      'LlmCallEnded',
      'ScheduleRetry',
      'SendLlmRequest',
      'LlmCallEnded',
      'UsageReported',
      'WaitForInput',
    ]);
    expect(actor.getSnapshot().context.lastError).toBeNull();
    actor.stop();
  });

  it('a hook actor is skipped: the user is told, and the agent goes back to the model', async () => {
    const postToolsHook = fromCallback<AnyEventObject, PostToolsHookInput>(() => {
      throw new Error('git exploded');
    });
    const { actor, failures, emitted } = startBehindBoundary({
      llm: llmReplying(completed(null, [call('t1', 'write_file')]), completed('ok')),
      tool: toolSucceeding,
      postToolsHook,
    });
    await waitFor(actor, idleAfter(2), HANG_GUARD);
    expect(failures.map((failure) => failure.event)).toEqual([
      { type: 'PostToolsHookCompleted', actionTaken: false, error: 'git exploded' },
    ]);
    expect(emitted).toContainEqual({
      type: 'DisplayError',
      message: 'The post-tools hook failed and was skipped: git exploded',
      source: 'hook',
    });
    expect(findTranscriptViolations(actor.getSnapshot().context.messages)).toEqual([]);
    actor.stop();
  });

  it('a retry timer fires at once instead of stranding the turn in Error', async () => {
    let attempts = 0;
    const llm = fromCallback<AnyEventObject, LlmActorInput>(({ sendBack }) => {
      attempts += 1;
      const answer: AgentEvent =
        attempts === 1
          ? { type: 'LlmError', error: { kind: 'server', message: 'internal server error' } }
          : completed('second time lucky');
      const timer = setTimeout(() => sendBack(answer), 1);
      return () => clearTimeout(timer);
    });
    const retryTimer = fromCallback<AnyEventObject, RetryTimerInput>(() => {
      throw new Error('no timers today');
    });
    const { actor, failures } = startBehindBoundary({ llm, retryTimer });
    await waitFor(actor, idleAfter(1), HANG_GUARD);
    expect(attempts).toBe(2);
    expect(failures.map((failure) => failure.event)).toEqual([{ type: 'RetryTimeoutFired' }]);
    actor.stop();
  });

  it('a grace timer ends the grace period at once: the aborted calls are answered with what is known', async () => {
    const toolGraceTimer = fromCallback<AnyEventObject, ToolGraceTimerInput>(() => {
      throw new Error('no timers today');
    });
    const { actor, failures } = startBehindBoundary({
      llm: llmReplying(completed(null, [call('t1', 'read_file')])),
      tool: toolHanging,
      toolGraceTimer,
    });
    await waitFor(actor, (s) => s.matches('ExecutingTools'), HANG_GUARD);
    actor.send({ type: 'Interrupt' });
    await waitFor(actor, (s) => atRest(s.value, s.context), HANG_GUARD);
    expect(actor.getSnapshot().value).toEqual({ WaitingForUserInput: 'Ready' });
    expect(failures.map((failure) => failure.event)).toEqual([{ type: 'ToolGraceExpired' }]);
    expect(actor.getSnapshot().context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'interrupted: the user interrupted the turn before this tool call finished',
        is_error: true,
      },
    ]);
    expect(Object.keys(actor.getSnapshot().children)).toEqual([]);
    actor.stop();
  });
});

describe('an actor that throws, without the boundary (XState semantics)', () => {
  it('puts the agent machine in its error state: the chart itself handles no actor errors', () => {
    const tool = fromCallback<AnyEventObject, ToolActorInput>(() => {
      throw new Error('disk gone');
    });
    const actor = createActor(
      agentMachine.provide({
        actors: { llm: llmReplying(completed(null, [call('t1', 'read_file')])), tool },
      }),
      { input: {} },
    );
    const errors: unknown[] = [];
    // Observed, so XState reports the failure here instead of throwing it at the host.
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    actor.send({ type: 'LlmCompleted', response: completedResponse('t1') });
    const snapshot = actor.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(Error);
    expect((snapshot.error as Error).message).toBe('disk gone');
    expect(errors).toHaveLength(1);
  });
});

function completedResponse(callId: string) {
  const event = completed(null, [call(callId, 'read_file')]);
  if (event.type !== 'LlmCompleted') throw new Error('unreachable');
  return event.response;
}

describe('an actor that throws, in createAgent', () => {
  /** An agent whose actors are all doubles: it touches no files and calls no model. */
  function agentWith(actors: Partial<Record<ActorName, AnyActorLogic>>) {
    const agent = createAgent({
      tools: [],
      autoCommit: false,
      permissions: { mode: 'bypassPermissions' },
      actors,
    });
    const diagnostics: AgentDiagnostic[] = [];
    const errors: Array<AgentNotifications['error']> = [];
    agent.on('diagnostic', (diagnostic) => {
      // What an agent says about itself at start (no API key, the sandbox) is not about events.
      if (!isStartupDiagnostic(diagnostic)) diagnostics.push(diagnostic);
    });
    agent.on('error', ({ message, source }) => errors.push({ message, source }));
    return { agent, diagnostics, errors };
  }

  it('reports ACTOR_FAILED once, gives the chart the event for the failure, and goes on', async () => {
    const tool = fromCallback<AnyEventObject, ToolActorInput>(() => {
      throw new Error('disk gone');
    });
    const { agent, diagnostics } = agentWith({
      llm: llmReplying(completed(null, [call('t1', 'read_file')]), completed('ok')),
      tool,
    });
    agent.send('go');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(diagnostics).toEqual([
      {
        code: 'ACTOR_FAILED',
        message:
          'the tool actor threw instead of answering the chart (disk gone); the chart was given ToolCompleted in its place',
        state: 'ExecutingTools',
        event: {
          type: 'ToolCompleted',
          callId: 't1',
          outcome: { status: 'error', error: { message: "tool 'read_file' failed: disk gone" } },
        },
      },
    ]);
    expect(agent.context.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(agent.actor.getSnapshot().status).toBe('active');
    // The agent takes the next turn as usual.
    agent.send('again');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(agent.context.usage.calls).toBe(3);
    expect(diagnostics).toHaveLength(1);
    await agent.shutdown();
  });

  it('a hook that throws is an error from source hook, and the turn goes on', async () => {
    const postToolsHook = fromCallback<AnyEventObject, PostToolsHookInput>(() => {
      throw new Error('git exploded');
    });
    const { agent, diagnostics, errors } = agentWith({
      llm: llmReplying(completed(null, [call('t1', 'write_file')]), completed('ok')),
      tool: toolSucceeding,
      postToolsHook,
    });
    agent.send('go');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['ACTOR_FAILED']);
    expect(errors).toEqual([
      { message: 'The post-tools hook failed and was skipped: git exploded', source: 'hook' },
    ]);
    expect(agent.context.usage.calls).toBe(2);
    await agent.shutdown();
  });
});

function isStartupDiagnostic(
  diagnostic: AgentDiagnostic | StartupDiagnostic,
): diagnostic is StartupDiagnostic {
  return (STARTUP_DIAGNOSTIC_CODES as readonly string[]).includes(diagnostic.code);
}
