/**
 * What pure mode keeps of an event (DESIGN section 4, "Serialisable"): a plain-JSON copy whose
 * fields the chart reads have been checked, so nothing stored as given can break a snapshot.
 */
import { describe, expect, it } from 'vitest';
import { type AgentDiagnostic, AgentCore, type AgentEvent } from '../../src/index.js';
import { userInput } from '../support/events.js';

function coreWithDiagnostics(): { core: AgentCore; diagnostics: AgentDiagnostic[] } {
  const diagnostics: AgentDiagnostic[] = [];
  const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d) });
  return { core, diagnostics };
}

/** A core in ExecutingTools with one running call `t1`. */
function executing(): { core: AgentCore; diagnostics: AgentDiagnostic[] } {
  const probe = coreWithDiagnostics();
  probe.core.handleEvent(userInput('go'));
  probe.core.handleEvent({
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } }],
      },
      stopReason: 'tool_use',
    },
  });
  expect(probe.core.state).toBe('ExecutingTools');
  return probe;
}

const assistant = (content: unknown[]) => ({ role: 'assistant', content });

describe('the event boundary of pure mode', () => {
  it.each<[string, unknown, string]>([
    [
      'a tool_use input that is a Map',
      {
        type: 'LlmCompleted',
        response: {
          message: assistant([{ type: 'tool_use', id: 't', name: 'n', input: new Map() }]),
        },
      },
      'LlmCompleted: response.message.content[0].input is a Map, not a plain object',
    ],
    [
      'a text block without text',
      { type: 'LlmCompleted', response: { message: assistant([{ type: 'text' }]) } },
      'LlmCompleted: response.message.content[0] is a text block without a string text',
    ],
    [
      'a stop reason that is not a string',
      { type: 'LlmCompleted', response: { message: assistant([]), stopReason: 7 } },
      'LlmCompleted: response.stopReason must be a string; got 7',
    ],
    [
      'usage that is not a count of tokens',
      {
        type: 'LlmCompleted',
        response: { message: assistant([]), usage: { input_tokens: '5', output_tokens: 1 } },
      },
      'LlmCompleted: response.usage.input_tokens must be a non-negative number; got "5"',
    ],
    [
      'usage that JSON cannot hold',
      {
        type: 'LlmCompleted',
        response: { message: assistant([]), usage: { input_tokens: Infinity, output_tokens: 1 } },
      },
      'LlmCompleted: response.usage.input_tokens is Infinity, which JSON cannot hold',
    ],
    [
      'tool input errors that are not sentences',
      { type: 'LlmCompleted', response: { message: assistant([]), toolInputErrors: { t: 1 } } },
      'LlmCompleted: response.toolInputErrors["t"] must be a string; got 1',
    ],
    [
      'a user tool_result without an id',
      { type: 'UserInput', message: { role: 'user', content: [{ type: 'tool_result' }] } },
      'UserInput: message.content[0] is a tool_result block without a string tool_use_id',
    ],
    [
      'an error status that is not a number',
      { type: 'LlmError', error: { kind: 'server', message: 'x', status: '500' } },
      'LlmError: error.status must be a number when given; got "500"',
    ],
  ])('refuses %s', (_name, event, message) => {
    const { core, diagnostics } = coreWithDiagnostics();
    core.handleEvent(userInput('go'));
    const before = core.context;
    expect(core.handleEvent(event as AgentEvent)).toEqual([]);
    expect(core.context).toBe(before);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['MALFORMED_EVENT', message]]);
  });

  it('refuses progress JSON cannot hold, and keeps JSON progress as a copy', () => {
    const { core, diagnostics } = executing();
    core.handleEvent({ type: 'ToolProgress', callId: 't1', progress: { bytes: 1024n } });
    expect(diagnostics.map((d) => d.message)).toEqual([
      'ToolProgress: progress.bytes is a BigInt (1024n)',
    ]);
    const progress = { bytes: 10, steps: ['a'] };
    core.handleEvent({ type: 'ToolProgress', callId: 't1', progress });
    progress.steps.push('changed afterwards');
    expect(core.context.toolRuns[0]?.progress).toEqual({ bytes: 10, steps: ['a'] });
  });

  it('keeps a copy of the message, not the object the caller still holds', () => {
    const { core } = coreWithDiagnostics();
    const message = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
    core.handleEvent({ type: 'UserInput', message });
    message.content[0]!.text = 'changed afterwards';
    expect(core.context.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it('reads a getter once, so an event cannot change between its check and the chart', () => {
    const { core } = coreWithDiagnostics();
    let reads = 0;
    const event = {
      type: 'UserInput',
      get message() {
        reads++;
        return reads === 1 ? { role: 'user', content: 'hi' } : { role: 'user', content: 1n };
      },
    };
    core.handleEvent(event as never);
    expect(reads).toBe(1);
    expect(core.context.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(() => JSON.stringify(core.snapshot())).not.toThrow();
  });
});
