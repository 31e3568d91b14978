/**
 * The caller's tool hooks in pure mode: `preToolUse` decides before the permission check, in the
 * documented order with the rules and the modes; `postToolUse` comments on a result. Both wait in
 * `ExecutingTools.Hooks.Running`; a failure fails closed before a call and open after one; an
 * interrupt, a shutdown and a restore keep every call's result true.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentSnapshot,
  type PermissionMode,
  type PreToolUseDecisionEvent,
  type ToolCall,
} from '../../src/index.js';
import { call, toolOk, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

const tools = [
  { name: 'read_file', mutating: false },
  { name: 'edit_file', mutating: true },
  { name: 'bash', mutating: true, edit: false },
];

function hooked(calls: ToolCall[], config: AgentConfig = {}) {
  const core = new AgentCore({
    tools,
    hooks: { preToolUse: true, postToolUse: true },
    permissions: { mode: 'default' },
    ...config,
  });
  core.handleEvent(userInput('go'));
  const actions = afterResponse(core, calls);
  return { core, actions };
}

const types = (actions: AgentAction[]) => actions.map((action) => action.type);
const lastContent = (core: AgentCore) => core.context.messages.at(-1)?.content;
const decide = (
  callId: string,
  fields: Omit<PreToolUseDecisionEvent, 'type' | 'callId'> = {},
): PreToolUseDecisionEvent => ({ type: 'PreToolUseDecision', callId, ...fields });

describe('the preToolUse hook', () => {
  it('sees every call before the permission check, waiting in Hooks.Running', () => {
    const { core, actions } = hooked([call('t1', 'read_file', { path: 'a' })]);
    expect(actions).toEqual([
      { type: 'RunPreToolUseHook', call: call('t1', 'read_file', { path: 'a' }) },
    ]);
    expect(core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Running', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Idle' },
    });
    expect(types(core.handleEvent(decide('t1')))).toEqual(['ExecuteTools']);
    expect(core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Idle' },
    });
  });

  /**
   * The documented order: the hook's deny; deny rules and remembered denials; `plan` refusing
   * mutating calls; tools that always ask and the hook's ask; the hook's allow; then the mode and
   * the allow rules as without a hook.
   */
  const table: Array<[PermissionMode, 'pass' | 'allow' | 'ask' | 'deny', string, string]> = [
    // mode, hook, tool → what happens
    ['default', 'pass', 'bash', 'ask'],
    ['default', 'allow', 'bash', 'run'],
    ['default', 'ask', 'read_file', 'ask'],
    ['default', 'deny', 'read_file', 'deny'],
    ['acceptEdits', 'pass', 'edit_file', 'run'],
    ['acceptEdits', 'ask', 'edit_file', 'ask'],
    ['acceptEdits', 'allow', 'bash', 'run'],
    ['plan', 'allow', 'edit_file', 'deny'],
    ['plan', 'ask', 'edit_file', 'deny'],
    ['plan', 'pass', 'read_file', 'run'],
    ['bypassPermissions', 'pass', 'bash', 'run'],
    ['bypassPermissions', 'ask', 'bash', 'ask'],
    ['bypassPermissions', 'deny', 'read_file', 'deny'],
  ];
  for (const [mode, hook, tool, expected] of table) {
    it(`in ${mode}, a hook that says ${hook} about ${tool}: ${expected}`, () => {
      const { core } = hooked([call('t1', tool, {})], { permissions: { mode } });
      const actions = core.handleEvent(
        decide('t1', hook === 'pass' ? {} : { decision: hook, reason: 'policy' }),
      );
      const happened = types(actions).includes('ExecuteTools')
        ? 'run'
        : types(actions).includes('RequestApproval')
          ? 'ask'
          : 'deny';
      expect(happened).toBe(expected);
    });
  }

  it('cannot allow past a deny rule, in any mode, bypassPermissions included', () => {
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as const) {
      const { core } = hooked([call('t1', 'bash', {})], { permissions: { mode, deny: ['bash'] } });
      expect(types(core.handleEvent(decide('t1', { decision: 'allow' })))).toEqual([
        'SendLlmRequest',
      ]);
      expect(lastContent(core)).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: "permission denied: a deny rule names 'bash'",
          is_error: true,
        },
      ]);
    }
  });

  it('denies with the reason the model reads', () => {
    const { core } = hooked([call('t1', 'edit_file', { path: 'migrations/1.sql' })]);
    core.handleEvent(decide('t1', { decision: 'deny', reason: 'migrations are generated' }));
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'permission denied by the preToolUse hook: migrations are generated',
        is_error: true,
      },
    ]);
  });

  it('runs the call with the input it gave, and the model reads that, and its note', () => {
    const { core } = hooked([call('t1', 'read_file', { path: 'a.txt' })]);
    const actions = core.handleEvent(
      decide('t1', { input: { path: 'b.txt' }, context: 'a.txt moved to b.txt' }),
    );
    expect(actions).toEqual([
      { type: 'ExecuteTools', calls: [call('t1', 'read_file', { path: 'b.txt' })] },
    ]);
    core.handleEvent(toolOk('t1', 'B'));
    core.handleEvent({ type: 'PostToolUseResult', callId: 't1' });
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'B\n\nA preToolUse hook changed this call\'s input before it ran; it ran with {"path":"b.txt"}.\n[preToolUse hook] a.txt moved to b.txt',
      },
    ]);
    // The transcript keeps what the model asked for.
    expect(core.context.messages.at(-2)?.content).toContainEqual({
      type: 'tool_use',
      id: 't1',
      name: 'read_file',
      input: { path: 'a.txt' },
    });
  });

  it('fails closed: a hook that failed denies the call, and the user is told', () => {
    const { core } = hooked([call('t1', 'read_file', {})]);
    const actions = core.handleEvent(
      decide('t1', { error: 'the preToolUse hook failed on read_file: timed out' }),
    );
    expect(actions).toContainEqual({
      type: 'DisplayError',
      message: 'the preToolUse hook failed on read_file: timed out',
      source: 'hook',
    });
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'permission denied: the preToolUse hook failed, so the call did not run (the preToolUse hook failed on read_file: timed out)',
        is_error: true,
      },
    ]);
  });

  it('is not asked about ask_user calls, which run nothing', () => {
    const { actions } = hooked(
      [call('q1', 'ask_user', { questions: [{ header: 'Name', question: 'Which?' }] })],
      { askUser: true },
    );
    expect(types(actions)).toEqual(['AskUser']);
  });

  it('is asked again after a restore when it had not answered, and never about a call it decided', () => {
    const { core } = hooked([call('t1', 'read_file', {}), call('t2', 'bash', {})]);
    core.handleEvent(decide('t2', { decision: 'ask' }));
    const stored = JSON.parse(JSON.stringify(core.snapshot())) as AgentSnapshot;
    const restored = AgentCore.fromSnapshot(stored, {
      tools,
      hooks: { preToolUse: true, postToolUse: true },
      permissions: { mode: 'default' },
    });
    expect(restored.stateValue).toEqual({
      ExecutingTools: {
        Hooks: 'Running',
        Approvals: 'Waiting',
        Subagents: 'Idle',
        Questions: 'Idle',
      },
    });
    expect(restored.handleEvent({ type: 'Resume' })).toEqual([
      { type: 'RunPreToolUseHook', call: call('t1', 'read_file', {}) },
      { type: 'RequestApproval', call: call('t2', 'bash', {}) },
    ]);
  });
});

describe('the postToolUse hook', () => {
  function ran(outcome: 'ok' | 'failed') {
    const { core } = hooked([call('t1', 'read_file', {})], { hooks: { postToolUse: true } });
    const actions = core.handleEvent(
      outcome === 'ok'
        ? toolOk('t1', 'text')
        : {
            type: 'ToolCompleted',
            callId: 't1',
            outcome: { status: 'error', error: { message: 'ENOENT' } },
          },
    );
    return { core, actions };
  }

  it('sees a call that ran, with its outcome, before the result is final', () => {
    const { core, actions } = ran('ok');
    expect(actions).toEqual([
      {
        type: 'RunPostToolUseHook',
        call: call('t1', 'read_file', {}),
        outcome: { status: 'success', output: 'text' },
      },
    ]);
    expect(core.state).toBe('ExecutingTools');
    core.handleEvent({ type: 'PostToolUseResult', callId: 't1', context: 'file is generated' });
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'text\n\n[postToolUse hook] file is generated',
      },
    ]);
  });

  it("replaces a failed call's error with its own message", () => {
    const { core } = ran('failed');
    core.handleEvent({
      type: 'PostToolUseResult',
      callId: 't1',
      message: 'no such file; try src/',
    });
    expect(lastContent(core)).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'no such file; try src/', is_error: true },
    ]);
  });

  it('fails open: the result stands, and the user is told', () => {
    const { core } = ran('ok');
    const actions = core.handleEvent({
      type: 'PostToolUseResult',
      callId: 't1',
      error: 'the postToolUse hook failed on read_file: boom',
    });
    expect(actions).toContainEqual({
      type: 'DisplayError',
      message: 'the postToolUse hook failed on read_file: boom',
      source: 'hook',
    });
    expect(lastContent(core)).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'text' },
    ]);
  });

  it('is left undone by an interrupt: the call keeps its own result', () => {
    const { core } = ran('ok');
    const actions = core.handleEvent({ type: 'Interrupt' });
    expect(actions).toContainEqual({ type: 'Cancel', toolCallIds: ['t1'] });
    expect(lastContent(core)).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'text' },
    ]);
  });
});

describe('an interrupt or a shutdown while the preToolUse hook decides', () => {
  it('answers the call as never run, and cancels the hook', () => {
    const interrupted = hooked([call('t1', 'bash', {})]).core;
    expect(interrupted.handleEvent({ type: 'Interrupt' })).toContainEqual({
      type: 'Cancel',
      toolCallIds: ['t1'],
    });
    expect(lastContent(interrupted)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'interrupted: the user interrupted the turn before this tool call ran',
        is_error: true,
      },
    ]);
    const shutDown = hooked([call('t1', 'bash', {})]).core;
    shutDown.handleEvent({ type: 'ShutdownRequested' });
    expect(lastContent(shutDown)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'cancelled: the agent shut down before this tool call ran',
        is_error: true,
      },
    ]);
  });
});
