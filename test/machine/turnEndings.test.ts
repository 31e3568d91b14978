/** How turns end: interrupts, queued input, giving up, shutdown (DESIGN section 1, "Turn endings"). */
import { describe, expect, it } from 'vitest';
import { type AgentAction, AgentCore, findTranscriptViolations } from '../../src/index.js';
import {
  call,
  completed,
  hookDone,
  interrupt,
  llmError,
  shutdown,
  textDelta,
  toolOk,
  userInput,
  usageReported,
} from '../support/events.js';

const types = (actions: AgentAction[]) => actions.map((action) => action.type);

/**
 * How calls an interrupt aborted are answered when they never said how they ended: the read-only
 * `t1` did nothing that matters, the mutating `t2` may have taken effect.
 */
const silentCallResults = [
  {
    type: 'tool_result',
    tool_use_id: 't1',
    content: 'interrupted: the user interrupted the turn before this tool call finished',
    is_error: true,
  },
  {
    type: 'tool_result',
    tool_use_id: 't2',
    content:
      'interrupted: the user interrupted the turn before this tool call finished; it may or may not have taken effect',
    is_error: true,
  },
];

describe('Interrupt', () => {
  it('in CallingLlm keeps the streamed text as an assistant message and cancels the model call', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('write a poem'));
    core.handleEvent(textDelta('Roses are '));
    core.handleEvent(textDelta('red'));
    core.handleEvent({
      type: 'LlmToolCallDelta',
      callId: 't1',
      toolName: 'bash',
      argumentsFragment: '{"co',
    });
    const actions = core.handleEvent(interrupt);
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(actions).toEqual([
      { type: 'LlmCallEnded', status: 'interrupted', transcriptIndex: 1 },
      { type: 'Cancel', llm: true },
      { type: 'WaitForInput' },
    ]);
    expect(core.context.messages).toEqual([
      { role: 'user', content: 'write a poem' },
      { role: 'assistant', content: [{ type: 'text', text: 'Roses are red' }] },
    ]);
    expect(core.context.streamingText).toBe('');
    expect(core.context.streamingToolCalls).toEqual([]);
  });

  it('in CallingLlm before any text adds no empty assistant message', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('hi'));
    core.handleEvent(interrupt);
    expect(core.context.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('in ExecutingTools aborts running calls and waits for them before answering, in call order', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('go'));
    core.handleEvent(
      completed(null, [call('t1', 'read_file'), call('t2', 'bash'), call('t3', 'write_file')]),
    );
    core.handleEvent(toolOk('t2', 'done'));
    const actions = core.handleEvent(interrupt);
    // The user sees the turn end at once; the results wait for how the aborted calls end.
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    expect(actions).toEqual([
      { type: 'Cancel', toolCallIds: ['t1', 't3'], graceMs: 5000 },
      { type: 'WaitForInput' },
    ]);
    expect(core.context.messages.at(-1)?.role).toBe('assistant');
    // t3 wrote its file anyway; t1 stopped on its signal.
    expect(core.handleEvent(toolOk('t3', 'wrote notes.txt'))).toEqual([]);
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'error', error: { message: 'aborted' } },
    });
    // The last aborted call settled: the results are in, and the agent takes input again.
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(core.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: 'interrupted: the user interrupted the turn and the call stopped (aborted)',
          is_error: true,
        },
        { type: 'tool_result', tool_use_id: 't2', content: 'done' },
        { type: 'tool_result', tool_use_id: 't3', content: 'wrote notes.txt' },
      ],
    });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('answers calls still silent when the grace period ends: mutating ones may have taken effect', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'read_file'), call('t2', 'write_file')]));
    core.handleEvent(interrupt);
    expect(core.handleEvent({ type: 'ToolGraceExpired' })).toEqual([
      { type: 'Cancel', toolCallIds: ['t1', 't2'] },
    ]);
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: silentCallResults });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('holds new input until the aborted calls are answered, then starts the turn', () => {
    const diagnostics: string[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d.code) });
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'bash')]));
    core.handleEvent(interrupt);
    // Taken (queued), not refused: no diagnostic, though nothing is asked of the caller.
    expect(core.handleEvent(userInput('next'))).toEqual([]);
    expect(diagnostics).toEqual([]);
    expect(core.context.queue).toHaveLength(1);
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    const actions = core.handleEvent(toolOk('t1', 'finished'));
    expect(core.state).toBe('CallingLlm');
    const [send] = actions;
    expect(send?.type).toBe('SendLlmRequest');
    const request = send?.type === 'SendLlmRequest' ? send.request : undefined;
    expect(request?.messages.slice(-2)).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'finished' }] },
      { role: 'user', content: 'next' },
    ]);
  });

  it('answers the aborted calls with what is known when the agent is resumed while waiting for them', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'read_file'), call('t2', 'write_file')]));
    core.handleEvent(interrupt);
    core.handleEvent(userInput('next'));
    // A restarted process cannot hear from the calls it was waiting for.
    const actions = core.handleEvent({ type: 'Resume' });
    expect(types(actions)).toEqual(['Cancel', 'SendLlmRequest']);
    expect(actions[0]).toEqual({ type: 'Cancel', toolCallIds: ['t1', 't2'] });
    expect(core.state).toBe('CallingLlm');
    expect(core.context.messages.at(-2)?.content).toEqual(silentCallResults);
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'next' });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('answers at once, with what is known, when there is no grace period', () => {
    const core = new AgentCore({ toolGraceMs: 0 });
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'write_file')]));
    expect(core.handleEvent(interrupt)).toEqual([
      { type: 'Cancel', toolCallIds: ['t1'] },
      { type: 'WaitForInput' },
    ]);
    expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(core.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content:
            'interrupted: the user interrupted the turn before this tool call finished; it may or may not have taken effect',
          is_error: true,
        },
      ],
    });
  });

  it('ignores a ToolCompleted that comes after the grace period', () => {
    const diagnostics: string[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d.code) });
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'read_file')]));
    core.handleEvent(interrupt);
    core.handleEvent({ type: 'ToolGraceExpired' });
    core.handleEvent(userInput('next'));
    const before = core.snapshot();
    expect(core.handleEvent(toolOk('t1', 'late'))).toEqual([]);
    expect(core.snapshot()).toEqual(before);
    expect(diagnostics).toEqual(['EVENT_NOT_ACCEPTED']);
  });

  it('in PostToolsHook cancels the hook and keeps the tool results', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('edit'));
    core.handleEvent(completed(null, [call('t1', 'edit_file')]));
    core.handleEvent(toolOk('t1'));
    const actions = core.handleEvent(interrupt);
    expect(actions).toEqual([{ type: 'Cancel', hook: true }, { type: 'WaitForInput' }]);
    expect(core.context.messages.at(-1)?.role).toBe('user');
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('in Error cancels the retry timer', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('hi'));
    core.handleEvent(llmError('overloaded'));
    expect(core.handleEvent(interrupt)).toEqual([
      { type: 'Cancel', retry: true },
      { type: 'WaitForInput' },
    ]);
    expect(core.state).toBe('WaitingForUserInput');
  });

  it('is not accepted while idle', () => {
    const core = new AgentCore();
    expect(core.handleEvent(interrupt)).toEqual([]);
  });
});

describe('queued input', () => {
  it('input during a turn is queued, not dropped, and starts the next turn when this one ends', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('first'));
    expect(core.handleEvent(userInput('second'))).toEqual([]);
    expect(core.context.queue).toEqual([{ role: 'user', content: 'second' }]);
    const actions = core.handleEvent(completed('answer one'));
    expect(core.state).toBe('CallingLlm');
    expect(types(actions)).toEqual(['LlmCallEnded', 'UsageReported', 'SendLlmRequest']);
    expect(core.context.queue).toEqual([]);
    expect(core.context.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'second' });
  });

  it('delivers queued input oldest first, one turn each', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('one'));
    core.handleEvent(userInput('two'));
    core.handleEvent(userInput('three'));
    core.handleEvent(completed('a'));
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'two' });
    core.handleEvent(completed('b'));
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'three' });
    expect(types(core.handleEvent(completed('c')))).toEqual([
      'LlmCallEnded',
      'UsageReported',
      'WaitForInput',
    ]);
  });

  it('an interrupt starts the next turn from the queue', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('slow question'));
    core.handleEvent(textDelta('Let me'));
    core.handleEvent(userInput('never mind, this instead'));
    const actions = core.handleEvent(interrupt);
    expect(types(actions)).toEqual(['LlmCallEnded', 'Cancel', 'SendLlmRequest']);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('giving up starts the next turn from the queue', () => {
    const core = new AgentCore({ maxRetries: 1 });
    core.handleEvent(userInput('a'));
    core.handleEvent(userInput('b'));
    const actions = core.handleEvent(llmError('server'));
    expect(types(actions)).toEqual(['LlmCallEnded', 'DisplayError', 'SendLlmRequest']);
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'b' });
  });

  it('queued input survives tool calls and the hook', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('edit'));
    core.handleEvent(completed(null, [call('t1', 'edit_file')]));
    core.handleEvent(userInput('then this'));
    core.handleEvent(toolOk('t1'));
    core.handleEvent(hookDone());
    core.handleEvent(completed('edited'));
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'then this' });
    expect(core.state).toBe('CallingLlm');
  });
});

describe('shutdown', () => {
  it('answers open tool calls so the stored transcript stays valid', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'bash')]));
    const actions = core.handleEvent(shutdown);
    expect(actions).toEqual([
      { type: 'Cancel', toolCallIds: ['t1'] },
      { type: 'Shutdown', discardedInput: [] },
    ]);
    expect(core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'cancelled: the agent shut down before this tool call finished; it may or may not have taken effect',
        is_error: true,
      },
    ]);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('answers calls still being waited for after an interrupt', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('go'));
    core.handleEvent(completed(null, [call('t1', 'read_file')]));
    core.handleEvent(interrupt);
    core.handleEvent(shutdown);
    expect(core.state).toBe('ShuttingDown');
    expect(core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'cancelled: the agent shut down before this tool call finished',
        is_error: true,
      },
    ]);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('reports queued input as discarded', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('a'));
    core.handleEvent(userInput('b'));
    core.handleEvent(textDelta('partial'));
    const actions = core.handleEvent(shutdown);
    expect(actions).toEqual([
      { type: 'LlmCallEnded', status: 'interrupted', transcriptIndex: 1 },
      { type: 'Cancel', llm: true },
      { type: 'Shutdown', discardedInput: [{ role: 'user', content: 'b' }] },
    ]);
    expect(core.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'partial' }],
    });
  });
});

describe('stop reasons', () => {
  it('a refusal ends the turn, answers its tool calls without running them, and says why', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('do something bad'));
    const actions = core.handleEvent(completed(null, [call('t1', 'bash')], 'refusal'));
    expect(core.state).toBe('WaitingForUserInput');
    expect(types(actions)).toEqual([
      'LlmCallEnded',
      'UsageReported',
      'DisplayError',
      'WaitForInput',
    ]);
    expect(core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'not run: the model ended its response with a refusal',
        is_error: true,
      },
    ]);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('max_tokens without tool calls ends the turn with a clear reason', () => {
    const core = new AgentCore({ maxTokens: 50 });
    core.handleEvent(userInput('long essay'));
    const actions = core.handleEvent(completed('It was a dark and', [], 'max_tokens'));
    expect(actions.slice(0, 3)).toEqual([
      { type: 'LlmCallEnded', status: 'completed', transcriptIndex: 1 },
      usageReported(),
      {
        type: 'DisplayError',
        message: 'The response was cut off at max_tokens (50); ask the model to continue.',
      },
    ]);
  });

  it('keeps thinking blocks and their signatures unchanged in the transcript', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('think'));
    const content = [
      { type: 'thinking', thinking: 'hmm', signature: 'EqQBCkYIARgCIkD' },
      { type: 'text', text: 'done' },
    ];
    core.handleEvent({
      type: 'LlmCompleted',
      response: { message: { role: 'assistant', content } },
    });
    expect(core.context.messages.at(-1)).toEqual({ role: 'assistant', content });
  });
});
