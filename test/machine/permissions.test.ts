/** Permission modes, rules and the approval wait inside ExecutingTools (DESIGN section 5). */
import { describe, expect, it } from 'vitest';
import { type AgentAction, type AgentConfig, AgentCore, type ToolCall } from '../../src/index.js';
import { call, toolOk, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

function respondWith(config: AgentConfig, calls: ToolCall[]) {
  const core = new AgentCore(config);
  core.handleEvent(userInput('go'));
  const actions = afterResponse(core, calls);
  return { core, actions };
}

const resultOf = (core: AgentCore, index = -1) => core.context.messages.at(index)?.content;

describe('without permissions', () => {
  it('runs every tool, as Loom does', () => {
    const calls = [call('t1', 'bash'), call('t2', 'edit_file')];
    const { actions } = respondWith({}, calls);
    expect(actions).toEqual([{ type: 'ExecuteTools', calls }]);
  });
});

describe('plan mode', () => {
  it('denies mutating calls with an error the model sees, and runs read-only ones', () => {
    const { core, actions } = respondWith({ permissions: { mode: 'plan' } }, [
      call('t1', 'edit_file'),
      call('t2', 'read_file'),
    ]);
    expect(actions).toEqual([{ type: 'ExecuteTools', calls: [call('t2', 'read_file')] }]);
    core.handleEvent(toolOk('t2', 'text'));
    expect(core.state).toBe('CallingLlm');
    expect(resultOf(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          "permission denied: plan mode is read-only and 'edit_file' may change the workspace; describe the change instead",
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 't2', content: 'text' },
    ]);
  });

  it('goes straight back to the model when every call is denied', () => {
    const { core, actions } = respondWith({ permissions: { mode: 'plan' } }, [call('t1', 'bash')]);
    expect(core.state).toBe('CallingLlm');
    expect(actions.map((action) => action.type)).toEqual(['SendLlmRequest']);
  });
});

describe('default mode', () => {
  it('asks before a mutating call and runs it once allowed', () => {
    const { core, actions } = respondWith({ permissions: { mode: 'default' } }, [
      call('t1', 'bash', { command: 'ls' }),
    ]);
    expect(actions).toEqual([
      { type: 'RequestApproval', call: call('t1', 'bash', { command: 'ls' }) },
    ]);
    expect(core.context.toolRuns[0]?.status).toBe('awaitingApproval');
    const allowed = core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'allow' });
    expect(allowed).toEqual([
      { type: 'ExecuteTools', calls: [call('t1', 'bash', { command: 'ls' })] },
    ]);
    expect(core.handleEvent(toolOk('t1')).map((a) => a.type)).toEqual(['RunPostToolsHook']);
  });

  it('a denial is a tool error the model sees; the turn goes on', () => {
    const { core } = respondWith({ permissions: { mode: 'default' } }, [call('t1', 'write_file')]);
    const actions = core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'deny' });
    expect(actions.map((a) => a.type)).toEqual(['SendLlmRequest']);
    expect(resultOf(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'permission denied: the user refused this write_file call',
        is_error: true,
      },
    ]);
  });

  it('a remembered approval covers the other waiting calls of that tool and later ones', () => {
    const { core } = respondWith({ permissions: { mode: 'default' } }, [
      call('t1', 'bash', { command: 'a' }),
      call('t2', 'bash', { command: 'b' }),
    ]);
    const actions = core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      remember: true,
    });
    expect(actions).toEqual([
      {
        type: 'ExecuteTools',
        calls: [call('t1', 'bash', { command: 'a' }), call('t2', 'bash', { command: 'b' })],
      },
    ]);
    core.handleEvent(toolOk('t1'));
    core.handleEvent(toolOk('t2'));
    core.handleEvent({ type: 'PostToolsHookCompleted', actionTaken: false });
    const later = afterResponse(core, [call('t3', 'bash')]);
    expect(later).toEqual([{ type: 'ExecuteTools', calls: [call('t3', 'bash')] }]);
  });

  it('an approval for a call that is not waiting is ignored', () => {
    const { core } = respondWith({ permissions: { mode: 'default' } }, [call('t1', 'read_file')]);
    expect(core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'deny' })).toEqual([]);
    expect(core.handleEvent({ type: 'ToolApproval', callId: 'nope', decision: 'allow' })).toEqual(
      [],
    );
  });
});

describe('acceptEdits mode', () => {
  it('runs edits without asking and asks for bash', () => {
    const { actions } = respondWith({ permissions: { mode: 'acceptEdits' } }, [
      call('t1', 'edit_file'),
      call('t2', 'bash'),
    ]);
    expect(actions).toEqual<AgentAction[]>([
      { type: 'ExecuteTools', calls: [call('t1', 'edit_file')] },
      { type: 'RequestApproval', call: call('t2', 'bash') },
    ]);
  });
});

describe('rules', () => {
  it('deny rules win even in bypassPermissions', () => {
    const { core, actions } = respondWith(
      { permissions: { mode: 'bypassPermissions', deny: ['bash'] } },
      [call('t1', 'bash'), call('t2', 'edit_file')],
    );
    expect(actions).toEqual([{ type: 'ExecuteTools', calls: [call('t2', 'edit_file')] }]);
    expect(core.context.toolRuns[0]?.outcome).toEqual({
      status: 'error',
      error: { message: "permission denied: a deny rule names 'bash'" },
    });
  });

  it('allow rules let a mutating tool run without asking in default mode', () => {
    const { actions } = respondWith({ permissions: { mode: 'default', allow: ['bash'] } }, [
      call('t1', 'bash'),
    ]);
    expect(actions).toEqual([{ type: 'ExecuteTools', calls: [call('t1', 'bash')] }]);
  });
});

describe('SetPermissionMode', () => {
  it('is accepted in any state and re-checks calls waiting for approval', () => {
    const { core } = respondWith({ permissions: { mode: 'default' } }, [
      call('t1', 'edit_file'),
      call('t2', 'bash'),
    ]);
    const actions = core.handleEvent({ type: 'SetPermissionMode', mode: 'acceptEdits' });
    expect(actions).toEqual([{ type: 'ExecuteTools', calls: [call('t1', 'edit_file')] }]);
    expect(core.context.permissionMode).toBe('acceptEdits');
    const toPlan = core.handleEvent({ type: 'SetPermissionMode', mode: 'plan' });
    expect(toPlan).toEqual([]);
    expect(core.context.toolRuns[1]?.status).toBe('done');
  });

  it('switches an agent without permissions to the given mode', () => {
    const core = new AgentCore();
    core.handleEvent({ type: 'SetPermissionMode', mode: 'plan' });
    expect(core.context.permissionMode).toBe('plan');
    core.handleEvent(userInput('go'));
    expect(afterResponse(core, [call('t1', 'bash')]).map((a) => a.type)).toEqual([
      'SendLlmRequest',
    ]);
  });
});
