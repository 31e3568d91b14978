/**
 * One test per row of Loom's transition table (shared/seeds/001), plus Loom's own unit tests,
 * in pure mode.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
} from '../../src/index.js';
import {
  call,
  completed,
  hookDone,
  llmError,
  retryFired,
  shutdown,
  textDelta,
  toolFailed,
  toolOk,
  userInput,
  usageReported,
} from '../support/events.js';

const types = (actions: AgentAction[]) => actions.map((action) => action.type);

function inCallingLlm(config = {}) {
  const core = new AgentCore(config);
  core.handleEvent(userInput('hello'));
  return core;
}

describe('WaitingForUserInput', () => {
  it('is the initial state, with an empty transcript', () => {
    const core = new AgentCore();
    expect(core.state).toBe('WaitingForUserInput');
    expect(core.context.messages).toEqual([]);
    expect(core.context.retries).toBe(0);
  });

  it('UserInput → CallingLlm with SendLlmRequest carrying the message', () => {
    const core = new AgentCore({ model: 'claude-test', maxTokens: 100, system: 'be brief' });
    const actions = core.handleEvent(userInput('hello'));
    expect(core.state).toBe('CallingLlm');
    expect(actions).toEqual([
      {
        type: 'SendLlmRequest',
        request: {
          model: 'claude-test',
          maxTokens: 100,
          system: 'be brief',
          messages: [{ role: 'user', content: 'hello' }],
        },
        attempt: 1,
      },
    ]);
  });
});

describe('CallingLlm', () => {
  it('LlmTextDelta stays in CallingLlm and returns DisplayMessage', () => {
    const core = inCallingLlm();
    expect(core.handleEvent(textDelta('Hel'))).toEqual([{ type: 'DisplayMessage', text: 'Hel' }]);
    core.handleEvent(textDelta('lo'));
    expect(core.state).toBe('CallingLlm');
    expect(core.context.streamingText).toBe('Hello');
  });

  it('LlmToolCallDelta accumulates argument fragments in their own field', () => {
    const core = inCallingLlm();
    const fragment = (argumentsFragment: string) =>
      core.handleEvent({
        type: 'LlmToolCallDelta',
        callId: 't1',
        toolName: 'bash',
        argumentsFragment,
      });
    fragment('{"comm');
    fragment('and":"ls"}');
    expect(core.state).toBe('CallingLlm');
    expect(core.context.streamingToolCalls).toEqual([
      { id: 't1', name: 'bash', argumentsJson: '{"command":"ls"}' },
    ]);
  });

  it('LlmStarted clears what an earlier attempt streamed, and says nothing', () => {
    const core = inCallingLlm();
    core.handleEvent(textDelta('Hel'));
    core.handleEvent({
      type: 'LlmToolCallDelta',
      callId: 't1',
      toolName: 'bash',
      argumentsFragment: '{',
    });
    expect(core.handleEvent({ type: 'LlmStarted' })).toEqual([]);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.streamingText).toBe('');
    expect(core.context.streamingToolCalls).toEqual([]);
  });

  it('LlmCompleted without tool calls → WaitingForUserInput with LlmCallEnded and WaitForInput', () => {
    const core = inCallingLlm();
    const actions = core.handleEvent(completed('Hi there'));
    expect(core.state).toBe('WaitingForUserInput');
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(actions).toEqual([
      { type: 'LlmCallEnded', status: 'completed', transcriptIndex: 1 },
      usageReported(),
      { type: 'WaitForInput' },
    ]);
    expect(core.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi there' }],
    });
  });

  it('LlmCompleted with tool calls → ExecutingTools with ExecuteTools', () => {
    const core = inCallingLlm();
    const calls = [call('t1', 'read_file', { path: 'a' }), call('t2', 'list_files')];
    const actions = core.handleEvent(completed('Looking', calls));
    expect(core.state).toBe('ExecutingTools');
    expect(actions).toEqual([
      { type: 'LlmCallEnded', status: 'completed', transcriptIndex: 1 },
      usageReported(),
      { type: 'ExecuteTools', calls },
    ]);
  });

  it('LlmError with attempts left → Error with ScheduleRetry', () => {
    const core = inCallingLlm({ maxRetries: 3 });
    const actions = core.handleEvent(llmError('overloaded'));
    expect(core.state).toBe('Error');
    expect(core.context.retries).toBe(1);
    expect(actions).toHaveLength(2);
    expect(actions[0]).toEqual({ type: 'LlmCallEnded', status: 'failed', transcriptIndex: 1 });
    expect(actions[1]).toMatchObject({ type: 'ScheduleRetry', attempt: 2 });
  });

  it('LlmError at the limit → WaitingForUserInput with DisplayError naming the error', () => {
    const core = inCallingLlm({ maxRetries: 2 });
    core.handleEvent(llmError('server', 'first'));
    core.handleEvent(retryFired);
    const actions = core.handleEvent(llmError('server', 'upstream exploded'));
    expect(core.state).toBe('WaitingForUserInput');
    expect(actions[1]).toEqual({
      type: 'DisplayError',
      message: 'Model call failed after 2 attempts (server): upstream exploded',
    });
    expect(types(actions)).toEqual(['LlmCallEnded', 'DisplayError', 'WaitForInput']);
    expect(actions[0]).toEqual({ type: 'LlmCallEnded', status: 'failed', transcriptIndex: 1 });
  });

  it('counts maxRetries as total attempts, as Loom does', () => {
    const core = inCallingLlm({ maxRetries: 3 });
    const states: string[] = [];
    for (let error = 1; error <= 3; error++) {
      core.handleEvent(llmError('network'));
      states.push(core.state);
      if (core.state === 'Error') core.handleEvent(retryFired);
    }
    expect(states).toEqual(['Error', 'Error', 'WaitingForUserInput']);
  });

  it('gives up at once on a non-retryable error', () => {
    for (const kind of ['auth', 'invalid_request'] as const) {
      const core = inCallingLlm({ maxRetries: 5 });
      const actions = core.handleEvent(llmError(kind, 'bad key'));
      expect(core.state).toBe('WaitingForUserInput');
      expect(actions.slice(0, 2)).toEqual([
        { type: 'LlmCallEnded', status: 'failed', transcriptIndex: 1 },
        { type: 'DisplayError', message: `Model call failed (${kind}, not retried): bad key` },
      ]);
    }
  });
});

describe('ProcessingLlmResponse', () => {
  it('is transient: the chart never rests there', () => {
    const core = inCallingLlm();
    core.handleEvent(completed('x'));
    expect(core.state).not.toBe('ProcessingLlmResponse');
    core.handleEvent(userInput('again'));
    core.handleEvent(completed(null, [call('t1', 'read_file')]));
    expect(core.state).not.toBe('ProcessingLlmResponse');
  });
});

describe('ExecutingTools', () => {
  function executing(calls: ReturnType<typeof call>[], config = {}) {
    const core = inCallingLlm(config);
    core.handleEvent(completed(null, calls));
    return core;
  }

  it('ToolCompleted with calls still pending stays in ExecutingTools', () => {
    const core = executing([call('t1', 'read_file'), call('t2', 'read_file')]);
    expect(core.handleEvent(toolOk('t1'))).toEqual([]);
    expect(core.state).toBe('ExecutingTools');
  });

  it('ToolCompleted, all done, read-only → CallingLlm with SendLlmRequest', () => {
    const core = executing([call('t1', 'read_file')]);
    const actions = core.handleEvent(toolOk('t1', 'contents'));
    expect(core.state).toBe('CallingLlm');
    expect(types(actions)).toEqual(['SendLlmRequest']);
  });

  it('ToolCompleted, all done, a mutating call succeeded → PostToolsHook with RunPostToolsHook', () => {
    const core = executing([call('t1', 'read_file'), call('t2', 'edit_file')]);
    core.handleEvent(toolOk('t1'));
    const actions = core.handleEvent(toolOk('t2'));
    expect(core.state).toBe('PostToolsHook');
    expect(actions).toEqual([
      {
        type: 'RunPostToolsHook',
        completedTools: [
          { name: 'read_file', succeeded: true },
          { name: 'edit_file', succeeded: true },
        ],
      },
    ]);
  });

  it('a failed mutating call skips the hook', () => {
    const core = executing([call('t1', 'bash')]);
    const actions = core.handleEvent(toolFailed('t1', 'exit code 1'));
    expect(core.state).toBe('CallingLlm');
    expect(types(actions)).toEqual(['SendLlmRequest']);
  });

  it('appends results in call order when tools complete in reverse order', () => {
    const core = executing([call('t1', 'read_file'), call('t2', 'read_file')]);
    core.handleEvent(toolOk('t2', 'second'));
    const [action] = core.handleEvent(toolOk('t1', 'first'));
    expect(action?.type).toBe('SendLlmRequest');
    expect(core.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'first' },
        { type: 'tool_result', tool_use_id: 't2', content: 'second' },
      ],
    });
  });

  it('feeds a failed tool back to the model as an error result', () => {
    const core = executing([call('t1', 'read_file')]);
    core.handleEvent(toolFailed('t1', 'no such file: a.txt'));
    expect(core.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'no such file: a.txt', is_error: true },
      ],
    });
  });

  it('serialises non-string tool output as JSON', () => {
    const core = executing([call('t1', 'list_files')]);
    core.handleEvent(toolOk('t1', { files: ['a', 'b'] }));
    const last = core.context.messages.at(-1);
    expect(last?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '{"files":["a","b"]}' },
    ]);
  });

  it('treats edit_file, write_file and bash as mutating without a spec, and honours a spec', () => {
    for (const name of ['edit_file', 'write_file', 'bash']) {
      const core = executing([call('t1', name)]);
      core.handleEvent(toolOk('t1'));
      expect(core.state).toBe('PostToolsHook');
    }
    const readOnlyBash = executing([call('t1', 'bash')], {
      tools: [{ name: 'bash', mutating: false }],
    });
    readOnlyBash.handleEvent(toolOk('t1'));
    expect(readOnlyBash.state).toBe('CallingLlm');
    const deploy = executing([call('t1', 'deploy')], {
      tools: [{ name: 'deploy', mutating: true }],
    });
    deploy.handleEvent(toolOk('t1'));
    expect(deploy.state).toBe('PostToolsHook');
  });

  it('answers a tool call whose input never parsed without running it', () => {
    const core = inCallingLlm();
    const actions = core.handleEvent({
      type: 'LlmCompleted',
      response: {
        ...completedResponse([call('t1', 'write_file'), call('t2', 'read_file')]),
        toolInputErrors: { t1: 'cut off by max_tokens' },
      },
    });
    expect(actions).toEqual([
      { type: 'LlmCallEnded', status: 'completed', transcriptIndex: 1 },
      usageReported(),
      { type: 'ExecuteTools', calls: [call('t2', 'read_file')] },
    ]);
    core.handleEvent(toolOk('t2'));
    expect(core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'invalid tool input: cut off by max_tokens',
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 't2', content: 'ok' },
    ]);
  });
});

function completedResponse(calls: ReturnType<typeof call>[]) {
  const event = completed(null, calls);
  if (event.type !== 'LlmCompleted') throw new Error('unreachable');
  return event.response;
}

describe('PostToolsHook', () => {
  it('PostToolsHookCompleted → CallingLlm with the pending request', () => {
    const core = inCallingLlm();
    core.handleEvent(completed(null, [call('t1', 'edit_file')]));
    core.handleEvent(toolOk('t1'));
    const actions = core.handleEvent(hookDone(true));
    expect(core.state).toBe('CallingLlm');
    expect(actions).toHaveLength(1);
    const [send] = actions;
    if (send?.type !== 'SendLlmRequest')
      throw new Error(`expected SendLlmRequest, got ${send?.type}`);
    expect(send.request.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
    ]);
  });
});

describe('PostToolsHook, when the hook failed', () => {
  it('PostToolsHookCompleted with an error → CallingLlm, telling the user the hook was skipped', () => {
    const core = inCallingLlm();
    core.handleEvent(completed(null, [call('t1', 'edit_file')]));
    core.handleEvent(toolOk('t1'));
    const actions = core.handleEvent({
      type: 'PostToolsHookCompleted',
      actionTaken: false,
      error: 'auto-commit failed: index.lock exists',
    });
    expect(core.state).toBe('CallingLlm');
    expect(types(actions)).toEqual(['DisplayError', 'SendLlmRequest']);
    expect(actions[0]).toEqual({
      type: 'DisplayError',
      message: 'The post-tools hook failed and was skipped: auto-commit failed: index.lock exists',
      source: 'hook',
    });
  });
});

describe('Error', () => {
  it('RetryTimeoutFired → CallingLlm with SendLlmRequest, keeping the count', () => {
    const core = inCallingLlm({ maxRetries: 3 });
    core.handleEvent(llmError('rate_limit'));
    const actions = core.handleEvent(retryFired);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.retries).toBe(1);
    expect(types(actions)).toEqual(['SendLlmRequest']);
    expect(actions[0]).toMatchObject({ attempt: 2 });
  });

  it('honours Retry-After when it is longer than the backoff', () => {
    const core = inCallingLlm();
    const [, retry] = core.handleEvent(llmError('rate_limit', '429', 7_000));
    expect(retry).toEqual({ type: 'ScheduleRetry', delayMs: 7_000, attempt: 2 });
  });

  it('grows the backoff exponentially with jitter, capped at 5 s', () => {
    const core = inCallingLlm({ maxRetries: 10 });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const [, retry] = core.handleEvent(llmError('overloaded'));
      if (retry?.type !== 'ScheduleRetry') throw new Error('expected ScheduleRetry');
      delays.push(retry.delayMs);
      const nominal = Math.min(5000, 200 * 2 ** (attempt - 1));
      expect(retry.delayMs).toBeGreaterThanOrEqual(nominal * 0.5);
      expect(retry.delayMs).toBeLessThan(nominal * 1.5);
      core.handleEvent(retryFired);
    }
    expect(Math.max(...delays)).toBeLessThan(7_500);
  });

  it('a successful response resets the attempt count', () => {
    const core = inCallingLlm({ maxRetries: 2 });
    core.handleEvent(llmError('server'));
    core.handleEvent(retryFired);
    core.handleEvent(completed(null, [call('t1', 'read_file')]));
    expect(core.context.retries).toBe(0);
    core.handleEvent(toolOk('t1'));
    core.handleEvent(llmError('server'));
    expect(core.state).toBe('Error');
  });
});

describe('ShutdownRequested', () => {
  const reach: Record<string, (core: AgentCore) => void> = {
    WaitingForUserInput: () => undefined,
    CallingLlm: (core) => core.handleEvent(userInput('hi')),
    ExecutingTools: (core) => {
      core.handleEvent(userInput('hi'));
      core.handleEvent(completed(null, [call('t1', 'read_file')]));
    },
    PostToolsHook: (core) => {
      core.handleEvent(userInput('hi'));
      core.handleEvent(completed(null, [call('t1', 'edit_file')]));
      core.handleEvent(toolOk('t1'));
    },
    Error: (core) => {
      core.handleEvent(userInput('hi'));
      core.handleEvent(llmError('overloaded'));
    },
  };

  for (const [state, go] of Object.entries(reach)) {
    it(`${state} → ShuttingDown with Shutdown`, () => {
      const core = new AgentCore();
      go(core);
      expect(core.state).toBe(state);
      const actions = core.handleEvent(shutdown);
      expect(core.state).toBe('ShuttingDown');
      expect(core.done).toBe(true);
      expect(actions.at(-1)).toEqual({ type: 'Shutdown', discardedInput: [] });
    });
  }

  it('ShuttingDown is final: later events return [] and report AGENT_STOPPED', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d) });
    core.handleEvent(shutdown);
    expect(core.handleEvent(userInput('too late'))).toEqual([]);
    expect(core.handleEvent(shutdown)).toEqual([]);
    expect(core.context.queue).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(['AGENT_STOPPED', 'AGENT_STOPPED']);
  });
});

describe('invalid events', () => {
  it('an event the state does not take changes nothing, returns [] and is reported', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d) });
    const before = core.snapshot();
    const contextBefore = core.context;
    const notHere: AgentEvent[] = [
      textDelta('x'),
      toolOk('t9'),
      retryFired,
      hookDone(),
      completed('x'),
      { type: 'LlmStarted' },
      // Nothing is in flight at rest, so there is nothing to resume.
      { type: 'Resume' },
    ];
    for (const event of notHere) {
      expect(core.accepts(event)).toBe(false);
      expect(core.handleEvent(event)).toEqual([]);
    }
    expect(core.snapshot()).toEqual(before);
    expect(core.context).toBe(contextBefore);
    expect(diagnostics).toHaveLength(notHere.length);
    expect(diagnostics.every((d) => d.code === 'EVENT_NOT_ACCEPTED')).toBe(true);
    expect(diagnostics.at(-1)?.message).toBe(
      'Resume is not accepted in state WaitingForUserInput.Ready; nothing changed',
    );
    expect(diagnostics[0]).toMatchObject({
      code: 'EVENT_NOT_ACCEPTED',
      state: 'WaitingForUserInput',
      message: 'LlmTextDelta is not accepted in state WaitingForUserInput.Ready; nothing changed',
    });
  });

  it('a malformed event is refused with a message that says what is wrong', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d) });
    core.handleEvent(userInput('hi'));
    const malformed = [
      { type: 'LlmTextDelta', content: 42 },
      { type: 'Teleport' },
      null,
      { type: 'UserInput', message: { role: 'user', content: '' } },
      { type: 'ToolCompleted', callId: 't1', outcome: { status: 'maybe' } },
    ];
    for (const event of malformed) {
      expect(core.handleEvent(event as never)).toEqual([]);
    }
    expect(core.state).toBe('CallingLlm');
    expect(diagnostics.map((d) => d.code)).toEqual(Array(5).fill('MALFORMED_EVENT'));
    expect(diagnostics[0]?.message).toBe('LlmTextDelta: content must be a string; got 42');
    expect(diagnostics[1]?.message).toMatch(
      /^unknown event type 'Teleport'; expected one of UserInput, /,
    );
  });
});
