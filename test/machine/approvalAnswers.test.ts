/**
 * What a person can say to a call waiting for approval besides yes and no: a refusal with a
 * reason the model reads, and an approval with an input of their own, which the call runs with
 * while the model is told so. Malformed answers change nothing.
 */
import { describe, expect, it } from 'vitest';
import { type AgentDiagnostic, AgentCore, type ToolSpec } from '../../src/index.js';
import { call, toolOk, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

const tools: ToolSpec[] = [{ name: 'bash', mutating: true, edit: false }];

function waiting(calls = [call('t1', 'bash', { command: 'rm -rf build' })]) {
  const diagnostics: AgentDiagnostic[] = [];
  const core = new AgentCore(
    { tools, permissions: { mode: 'default' } },
    { onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) },
  );
  core.handleEvent(userInput('clean up'));
  afterResponse(core, calls);
  return { core, diagnostics };
}

/** The tool results of the request that follows the calls. */
function resultsOf(core: AgentCore) {
  return core.context.messages.at(-1)?.content;
}

describe('answering an approval', () => {
  it('refuses with the reason the person gave, which the model reads', () => {
    const { core } = waiting();
    core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'deny',
      reason: 'only remove build/cache',
    });
    expect(core.state).toBe('CallingLlm');
    expect(resultsOf(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'permission denied: the user refused this bash call: only remove build/cache',
        is_error: true,
      },
    ]);
  });

  it('runs the call with the input the person gave, and tells the model it was edited', () => {
    const { core } = waiting();
    const actions = core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      input: { command: 'rm -rf build/cache' },
    });
    expect(actions).toEqual([
      { type: 'ExecuteTools', calls: [call('t1', 'bash', { command: 'rm -rf build/cache' })] },
    ]);
    core.handleEvent(toolOk('t1', 'removed'));
    // The model's own request stays in the transcript as it asked it.
    expect(core.context.messages.at(-2)?.content).toContainEqual({
      type: 'tool_use',
      id: 't1',
      name: 'bash',
      input: { command: 'rm -rf build' },
    });
    expect(resultsOf(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'The user edited this call\'s input before it ran; it ran with {"command":"rm -rf build/cache"}.\n\nremoved',
      },
    ]);
  });

  it('puts the note before content blocks too', () => {
    const { core } = waiting();
    core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      input: { command: 'ls' },
    });
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', content: [{ type: 'text', text: 'a b' }] },
    });
    expect(resultsOf(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [
          {
            type: 'text',
            text: 'The user edited this call\'s input before it ran; it ran with {"command":"ls"}.',
          },
          { type: 'text', text: 'a b' },
        ],
      },
    ]);
  });

  it('remembers the decision, not the edited input, for the other calls of the tool', () => {
    const { core } = waiting([
      call('t1', 'bash', { command: 'rm a' }),
      call('t2', 'bash', { command: 'rm b' }),
    ]);
    const actions = core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      input: { command: 'rm -i a' },
      remember: true,
    });
    expect(actions).toEqual([
      {
        type: 'ExecuteTools',
        calls: [
          call('t1', 'bash', { command: 'rm -i a' }),
          call('t2', 'bash', { command: 'rm b' }),
        ],
      },
    ]);
  });

  it.each([
    [{ decision: 'allow', reason: 'fine' }, 'reason goes with a deny; an allow takes none'],
    [{ decision: 'deny', input: { command: 'ls' } }, 'input goes with an allow'],
    [{ decision: 'allow', input: ['ls'] }, 'input must be an object'],
    [{ decision: 'deny', reason: 42 }, 'reason'],
  ])('refuses %j and changes nothing', (answer, problem) => {
    const { core, diagnostics } = waiting();
    const before = core.snapshot();
    expect(core.handleEvent({ type: 'ToolApproval', callId: 't1', ...answer } as never)).toEqual(
      [],
    );
    expect(core.snapshot()).toEqual(before);
    expect(diagnostics.at(-1)).toMatchObject({ code: 'MALFORMED_EVENT' });
    expect(diagnostics.at(-1)?.message).toContain(problem);
  });
});
