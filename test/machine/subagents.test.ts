/**
 * Subagents in pure mode: a `task` call asks for its subagent with a `StartSubagent` action
 * (not `ExecuteTools`), waits in `ExecutingTools`' `Subagents.Running`, takes the subagent's final
 * answer as its `ToolCompleted`, and adds what the subagent used to the session; a task for an
 * agent that does not exist is answered at once; an interrupt cancels it like any call.
 */
import { describe, expect, it } from 'vitest';
import { type AgentConfig, AgentCore } from '../../src/index.js';
import { subagentScope } from '../../src/machine/index.js';
import { actionsOf, call, completed, toolOk, userInput } from '../support/events.js';

const CONFIG: AgentConfig = {
  tools: [{ name: 'read_file', mutating: false }],
  agents: {
    reviewer: { description: 'Reviews code', system: 'You review.', tools: ['read_file'] },
  },
};

const task = (id: string, agent = 'reviewer') =>
  call(id, 'task', { agent, prompt: 'review src/a.ts', description: 'review a.ts' });

describe('subagents in pure mode', () => {
  it('offers the task tool, naming each agent', () => {
    const core = new AgentCore(CONFIG);
    const [send] = actionsOf(core.handleEvent(userInput('review it')), 'SendLlmRequest');
    const tool = send!.request.tools?.find((definition) => definition.name === 'task');
    expect(tool?.description).toContain('- reviewer: Reviews code');
    expect(tool?.input_schema).toMatchObject({ properties: { agent: { enum: ['reviewer'] } } });
  });

  it('starts each task call’s subagent, waits for its answer, and adds what it used', () => {
    const core = new AgentCore(CONFIG);
    core.handleEvent(userInput('review it'));
    const actions = core.handleEvent(
      completed('Two reviews.', [task('t1'), task('t2'), call('t3', 'read_file', { path: 'a' })]),
    );
    const started = actionsOf(actions, 'StartSubagent');
    expect(started.map((action) => action.call.id)).toEqual(['t1', 't2']);
    expect(started[0]).toMatchObject({
      task: { agent: 'reviewer', prompt: 'review src/a.ts', description: 'review a.ts' },
      spec: { system: 'You review.' },
      permissionMode: null,
    });
    expect(actionsOf(actions, 'ExecuteTools')[0]?.calls.map((c) => c.id)).toEqual(['t3']);
    expect(core.snapshot().state).toBe('ExecutingTools');
    expect(core.stateValue).toMatchObject({ ExecutingTools: { Subagents: 'Running' } });

    core.handleEvent(toolOk('t3'));
    const used = {
      input_tokens: 100,
      output_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      costUsd: 0.01,
    };
    core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', output: 'LGTM' },
      usage: used,
    });
    expect(core.stateValue).toMatchObject({ ExecutingTools: { Subagents: 'Running' } });
    const after = core.handleEvent({
      type: 'ToolCompleted',
      callId: 't2',
      outcome: { status: 'success', output: 'one race in a.ts' },
      usage: used,
    });
    expect(actionsOf(after, 'SendLlmRequest')).toHaveLength(1);
    expect(core.context.usage).toMatchObject({ input_tokens: 200, output_tokens: 80, calls: 1 });
    expect(core.context.turn.usage.output_tokens).toBe(80);
    const results = core.context.messages.at(-1)!;
    expect(JSON.stringify(results)).toContain('one race in a.ts');
  });

  it('answers a task for an agent that does not exist at once, without starting anything', () => {
    const core = new AgentCore(CONFIG);
    core.handleEvent(userInput('review it'));
    const actions = core.handleEvent(completed(null, [task('t1', 'nobody')]));
    expect(actionsOf(actions, 'StartSubagent')).toEqual([]);
    expect(actionsOf(actions, 'SendLlmRequest')).toHaveLength(1);
    expect(JSON.stringify(core.context.messages.at(-1))).toContain('agent must be one of reviewer');
  });

  it('starts an approved task with the person’s edited input, and answers an invalid edit at once', () => {
    // The preToolUse hook asks a person about the task call; the person edits its input.
    const asked = (): AgentCore => {
      const core = new AgentCore({ ...CONFIG, hooks: { preToolUse: true } });
      core.handleEvent(userInput('review it'));
      core.handleEvent(completed(null, [task('t1')]));
      const asking = core.handleEvent({
        type: 'PreToolUseDecision',
        callId: 't1',
        decision: 'ask',
      });
      expect(actionsOf(asking, 'RequestApproval').map((action) => action.call.id)).toEqual(['t1']);
      return core;
    };
    const narrowed = { agent: 'reviewer', prompt: 'review only f()', description: 'review f' };
    const started = asked().handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      input: narrowed,
    });
    expect(actionsOf(started, 'StartSubagent')).toMatchObject([{ task: narrowed }]);
    expect(actionsOf(started, 'ExecuteTools')).toEqual([]);

    const invalid = asked();
    const answered = invalid.handleEvent({
      type: 'ToolApproval',
      callId: 't1',
      decision: 'allow',
      input: { agent: 'nobody', prompt: 'x', description: 'x' },
    });
    expect(actionsOf(answered, 'StartSubagent')).toEqual([]);
    expect(actionsOf(answered, 'ExecuteTools')).toEqual([]);
    expect(actionsOf(answered, 'SendLlmRequest')).toHaveLength(1);
    expect(JSON.stringify(invalid.context.messages.at(-1))).toContain(
      'agent must be one of reviewer',
    );
  });

  it('cancels a running subagent on an interrupt, and refuses a malformed usage', () => {
    const diagnostics: string[] = [];
    const core = new AgentCore(
      { ...CONFIG, toolGraceMs: 0 },
      { onDiagnostic: (d) => diagnostics.push(d.code) },
    );
    core.handleEvent(userInput('review it'));
    core.handleEvent(completed(null, [task('t1')]));
    expect(
      core.handleEvent({
        type: 'ToolCompleted',
        callId: 't1',
        outcome: { status: 'success', output: 'x' },
        usage: { input_tokens: -1 } as never,
      }),
    ).toEqual([]);
    expect(diagnostics).toEqual(['MALFORMED_EVENT']);
    const interrupted = core.handleEvent({ type: 'Interrupt' });
    expect(interrupted).toContainEqual(
      expect.objectContaining({ type: 'Cancel', toolCallIds: ['t1'] }),
    );
    expect(core.snapshot().state).toBe('WaitingForUserInput');
  });

  it('refuses agents that name a tool the agent does not have, and a tool of its own named task', () => {
    expect(() => new AgentCore({ agents: { a: { description: 'x', tools: ['bash'] } } })).toThrow(
      /tools/,
    );
    expect(
      () => new AgentCore({ tools: [{ name: 'task' }], agents: { a: { description: 'x' } } }),
    ).toThrow(/built-in subagent tool/);
    expect(() => new AgentCore({ agents: { 'no spaces': { description: 'x' } } })).toThrow(/name/);
  });

  it('scopes a subagent to its spec’s tools, offering the agents it has the tools for', () => {
    const agents = {
      reader: { description: 'Reads', tools: ['read_file'] },
      tester: { description: 'Tests', tools: ['read_file', 'bash'] },
      any: { description: 'Anything' },
    };
    const reader = subagentScope(agents.reader, ['read_file', 'bash', 'edit_file'], agents, 1);
    expect(reader).toEqual({
      tools: ['read_file'],
      agents: { reader: agents.reader, any: agents.any },
    });
    expect(subagentScope(agents.any, ['read_file', 'bash'], agents, 1).agents).toEqual(agents);
    expect(subagentScope(agents.tester, ['read_file', 'bash'], agents, 0)).toEqual({
      tools: ['read_file', 'bash'],
    });
    expect(subagentScope(agents.reader, ['read_file'], { tester: agents.tester }, 1)).toEqual({
      tools: ['read_file'],
    });
  });
});
