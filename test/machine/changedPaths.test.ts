/**
 * The paths a tool call changed travel as data in its outcome: the chart keeps them with the run,
 * hands them to the post-tools hook, and never shows them to the model.
 */
import { describe, expect, it } from 'vitest';
import { AgentCore, changedPathsOf, type ToolResultBlock, validateEvent } from '../../src/index.js';

function coreInExecutingTools() {
  const core = new AgentCore({});
  core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'write two files' } });
  core.handleEvent({
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a.txt' } },
          { type: 'tool_use', id: 't2', name: 'bash', input: { command: 'touch b.txt a.txt' } },
          { type: 'tool_use', id: 't3', name: 'write_file', input: { path: 'c.txt' } },
        ],
      },
      stopReason: 'tool_use',
    },
  });
  return core;
}

describe('changed paths', () => {
  it('are gathered from the successful outcomes in call order, each once', () => {
    const core = coreInExecutingTools();
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't2',
      outcome: { status: 'success', output: '[exit code 0]', changedPaths: ['b.txt', 'a.txt'] },
    });
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't3',
      outcome: { status: 'error', error: { message: 'disk full' } },
    });
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', output: "created 'a.txt'", changedPaths: ['a.txt'] },
    });
    expect(core.state).toBe('PostToolsHook');
    expect(changedPathsOf(core.context.toolRuns)).toEqual(['a.txt', 'b.txt']);
  });

  it('never reach the model: the tool_result holds the output only', () => {
    const core = coreInExecutingTools();
    for (const callId of ['t1', 't2', 't3']) {
      core.handleEvent({
        type: 'ToolCompleted',
        callId,
        outcome: { status: 'success', output: `done ${callId}`, changedPaths: ['a.txt'] },
      });
    }
    const [action] = core.handleEvent({ type: 'PostToolsHookCompleted', actionTaken: true });
    expect(action?.type).toBe('SendLlmRequest');
    const request = action?.type === 'SendLlmRequest' ? action.request : undefined;
    const results = request?.messages.at(-1)?.content as ToolResultBlock[];
    expect(results.map((block) => block.content)).toEqual(['done t1', 'done t2', 'done t3']);
    expect(JSON.stringify(request)).not.toContain('changedPaths');
  });

  it('must be an array of strings when an outcome carries them', () => {
    const event = (changedPaths: unknown) => ({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', output: 'ok', changedPaths },
    });
    expect(validateEvent(event(['a.txt']))).toBeNull();
    expect(validateEvent(event(undefined))).toBeNull();
    expect(validateEvent(event('a.txt'))).toMatch(/changedPaths must be an array of strings/);
    expect(validateEvent(event([1]))).toMatch(/changedPaths must be an array of strings/);
  });
});
