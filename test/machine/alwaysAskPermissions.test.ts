/**
 * A tool whose spec says `alwaysAsk` (one whose every call a person must see) waits for a person
 * in every mode; only refusals still refuse it.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  AgentCore,
  type PermissionMode,
  type ToolSpec,
} from '../../src/index.js';
import { call, toolOk, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

const unconfinedBash: ToolSpec = { name: 'bash', mutating: true, edit: false, alwaysAsk: true };
const tools: ToolSpec[] = [unconfinedBash, { name: 'read_file', mutating: false }];

function respondWith(config: AgentConfig, calls = [call('t1', 'bash', { command: 'ls' })]) {
  const core = new AgentCore({ tools, ...config });
  core.handleEvent(userInput('go'));
  const actions = afterResponse(core, calls);
  return { core, actions };
}

const askForBash = [{ type: 'RequestApproval', call: call('t1', 'bash', { command: 'ls' }) }];

describe('a tool that always asks', () => {
  it('asks even without permissions configured, where every other tool runs', () => {
    expect(respondWith({}).actions).toEqual(askForBash);
  });

  it.each<PermissionMode>(['default', 'acceptEdits', 'bypassPermissions'])(
    'asks in %s mode, even with an allow rule naming it',
    (mode) => {
      expect(respondWith({ permissions: { mode, allow: ['bash'] } }).actions).toEqual(askForBash);
    },
  );

  it('is still refused in plan mode and by a deny rule', () => {
    const plan = respondWith({ permissions: { mode: 'plan' } });
    expect(plan.actions.map((action) => action.type)).toEqual(['SendLlmRequest']);
    const denied = respondWith({ permissions: { mode: 'bypassPermissions', deny: ['bash'] } });
    expect(denied.core.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: "permission denied: a deny rule names 'bash'",
        is_error: true,
      },
    ]);
  });

  it('runs once approved, and a remembered approval does not cover the next call', () => {
    const { core } = respondWith({ permissions: { mode: 'bypassPermissions' } });
    const approved = core.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      remember: true,
    });
    expect(approved).toEqual([
      { type: 'ExecuteTools', calls: [call('t1', 'bash', { command: 'ls' })] },
    ]);
    core.handleEvent(toolOk('t1'));
    core.handleEvent({ type: 'PostToolsHookCompleted', actionTaken: false });
    expect(afterResponse(core, [call('t2', 'bash')])).toEqual([
      { type: 'RequestApproval', call: call('t2', 'bash') },
    ]);
  });

  it('a remembered denial refuses later calls without asking', () => {
    const { core } = respondWith({ permissions: { mode: 'default' } });
    core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'deny', remember: true });
    expect(afterResponse(core, [call('t2', 'bash')]).map((a) => a.type)).toEqual([
      'SendLlmRequest',
    ]);
  });

  it('leaves the other tools to the usual rules', () => {
    const read = [call('t1', 'read_file')];
    for (const config of [{}, { permissions: { mode: 'plan' as const } }]) {
      expect(respondWith(config, read).actions).toEqual([{ type: 'ExecuteTools', calls: read }]);
    }
  });
});
