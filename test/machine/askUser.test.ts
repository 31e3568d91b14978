/**
 * The built-in `ask_user` tool in pure mode: the chart puts the model's questions to the user
 * (`AskUser`), waits in `ExecutingTools.Questions.Waiting` beside the calls that run and the
 * approvals that wait, and makes the answers (`UserAnswer`) the call's result. Interrupts,
 * shutdowns and restores keep the transcript valid and ask again where they must.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  type AgentDiagnostic,
  type AgentSnapshot,
  AgentCore,
  AgentStatechartError,
  type ToolCall,
} from '../../src/index.js';
import { findTranscriptViolations } from '../../src/index.js';
import { call, toolOk, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

const pick = {
  header: 'Database',
  question: 'Which database should the service use?',
  options: [{ label: 'PostgreSQL', description: 'shared, managed' }, { label: 'SQLite' }],
};
const several = {
  header: 'Features',
  question: 'Which features go in the first release?',
  options: [{ label: 'Search' }, { label: 'Export' }, { label: 'Import' }],
  multiSelect: true,
};

const ask = (id: string, questions: unknown[] = [pick]): ToolCall =>
  call(id, 'ask_user', { questions });

function asking(calls: ToolCall[], config: AgentConfig = {}) {
  const diagnostics: AgentDiagnostic[] = [];
  const core = new AgentCore(
    { askUser: true, tools: [{ name: 'edit_file', mutating: true }], ...config },
    { onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) },
  );
  core.handleEvent(userInput('set up the service'));
  const actions = afterResponse(core, calls);
  return { core, actions, diagnostics };
}

/** The content of the last message: the tool results after the calls are all answered. */
const lastContent = (core: AgentCore) => core.context.messages.at(-1)?.content;

describe('asking the user', () => {
  it('offers the tool only when askUser is on, after the configured tools', () => {
    const on = new AgentCore({
      askUser: true,
      tools: [{ name: 'read_file', inputSchema: { type: 'object' } }],
    });
    const off = new AgentCore({ tools: [{ name: 'read_file', inputSchema: { type: 'object' } }] });
    const requestOf = (core: AgentCore) => {
      const [sent] = core.handleEvent(userInput('hi'));
      return sent?.type === 'SendLlmRequest' ? sent.request : undefined;
    };
    expect(requestOf(on)?.tools?.map((tool) => tool.name)).toEqual(['read_file', 'ask_user']);
    expect(requestOf(off)?.tools?.map((tool) => tool.name)).toEqual(['read_file']);
  });

  it('puts the questions to the user, waits for the answers, and makes them the result', () => {
    const { core, actions } = asking([ask('q1', [pick, several])]);
    expect(actions).toEqual([{ type: 'AskUser', callId: 'q1', questions: [pick, several] }]);
    expect(core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
    const next = core.handleEvent({
      type: 'UserAnswer',
      callId: 'q1',
      answers: ['SQLite', ['Search', 'Export']],
    });
    expect(next.map((action) => action.type)).toEqual(['SendLlmRequest']);
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'q1',
        content:
          'The user answered:\n[Database] Which database should the service use?\n→ SQLite\n[Features] Which features go in the first release?\n→ Search, Export',
      },
    ]);
  });

  it('says which questions went unanswered', () => {
    const { core } = asking([ask('q1', [pick, several])]);
    core.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: ['', []] });
    const [result] = lastContent(core) as Array<{ content: string }>;
    expect(result?.content.match(/→ \(no answer\)/g)).toHaveLength(2);
  });

  it('refuses answers that do not fit the questions, and keeps waiting', () => {
    const { core, diagnostics } = asking([ask('q1', [pick])]);
    for (const answers of [[], ['SQLite', 'extra'], [['PostgreSQL', 'SQLite']]]) {
      expect(core.handleEvent({ type: 'UserAnswer', callId: 'q1', answers })).toEqual([]);
    }
    expect(core.handleEvent({ type: 'UserAnswer', callId: 'nope', answers: ['x'] })).toEqual([]);
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'EVENT_NOT_ACCEPTED',
      'EVENT_NOT_ACCEPTED',
      'EVENT_NOT_ACCEPTED',
      'EVENT_NOT_ACCEPTED',
    ]);
    // Each says why: the answers do not fit, or the call is not asking.
    expect(diagnostics[0]?.message).toMatch(/^UserAnswer ignored: 0 answers for 1 question/);
    expect(diagnostics[3]?.message).toMatch(
      /tool call 'nope' is not waiting for answers \(no call of the current response has that id\)/,
    );
    expect(core.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: 7 } as never)).toEqual([]);
    expect(diagnostics.at(-1)?.code).toBe('MALFORMED_EVENT');
    expect(core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
  });

  it('answers malformed questions at once with what is wrong, asking nothing', () => {
    const { core, actions } = asking([ask('q1', [{ question: 'Which one?' }])]);
    expect(actions.map((action) => action.type)).toEqual(['SendLlmRequest']);
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'q1',
        content: 'invalid input: questions[0].header must be a string of 1 to 30 characters',
        is_error: true,
      },
    ]);
  });

  it('waits for a question and an approval together, each in its region, in any order', () => {
    const { core, actions } = asking([ask('q1'), call('e1', 'edit_file', { path: 'a.txt' })], {
      permissions: { mode: 'default' },
    });
    expect(actions.map((action) => action.type)).toEqual(['RequestApproval', 'AskUser']);
    expect(core.stateValue).toEqual({
      ExecutingTools: {
        Hooks: 'Idle',
        Approvals: 'Waiting',
        Subagents: 'Idle',
        Questions: 'Waiting',
      },
    });
    core.handleEvent({ type: 'ToolApproval', callId: 'e1', decision: 'allow' });
    expect(core.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
    core.handleEvent(toolOk('e1', 'edited'));
    expect(core.state).toBe('ExecutingTools');
    core.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: ['PostgreSQL'] });
    // A mutating call succeeded: the hook runs before the model sees the results.
    expect(core.state).toBe('PostToolsHook');
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('waits for the questions of parallel calls together, answered in any order', () => {
    const { core, actions } = asking([ask('q1'), ask('q2', [several])]);
    expect(actions).toEqual([
      { type: 'AskUser', callId: 'q1', questions: [pick] },
      { type: 'AskUser', callId: 'q2', questions: [several] },
    ]);
    core.handleEvent({ type: 'UserAnswer', callId: 'q2', answers: [['Import']] });
    expect(core.state).toBe('ExecutingTools');
    core.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: ['SQLite'] });
    expect(core.state).toBe('CallingLlm');
    const results = lastContent(core) as Array<{ tool_use_id: string }>;
    expect(results.map((result) => result.tool_use_id)).toEqual(['q1', 'q2']);
  });

  it('answers the call as interrupted when the user interrupts instead, and withdraws it', () => {
    const { core } = asking([ask('q1')]);
    const actions = core.handleEvent({ type: 'Interrupt' });
    expect(actions).toContainEqual({ type: 'Cancel', toolCallIds: ['q1'] });
    expect(core.state).toBe('WaitingForUserInput');
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'q1',
        content: 'interrupted: the user interrupted the turn without answering these questions',
        is_error: true,
      },
    ]);
  });

  it('answers the call as cancelled when the agent shuts down', () => {
    const { core } = asking([ask('q1')]);
    core.handleEvent({ type: 'ShutdownRequested' });
    expect(core.state).toBe('ShuttingDown');
    expect(lastContent(core)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'q1',
        content: 'cancelled: the agent shut down before the user answered these questions',
        is_error: true,
      },
    ]);
  });

  it('asks again after a restore, and takes the answer then', () => {
    const { core } = asking([ask('q1'), call('e1', 'edit_file', { path: 'a.txt' })], {
      permissions: { mode: 'default' },
    });
    const stored = JSON.parse(JSON.stringify(core.snapshot())) as AgentSnapshot;
    const restored = AgentCore.fromSnapshot(stored, {
      askUser: true,
      tools: [{ name: 'edit_file', mutating: true }],
      permissions: { mode: 'default' },
    });
    expect(restored.stateValue).toEqual({
      ExecutingTools: {
        Hooks: 'Idle',
        Approvals: 'Waiting',
        Subagents: 'Idle',
        Questions: 'Waiting',
      },
    });
    const actions = restored.handleEvent({ type: 'Resume' });
    expect(actions).toEqual([
      { type: 'RequestApproval', call: call('e1', 'edit_file', { path: 'a.txt' }) },
      { type: 'AskUser', callId: 'q1', questions: [pick] },
    ]);
    restored.handleEvent({ type: 'ToolApproval', callId: 'e1', decision: 'deny' });
    restored.handleEvent({ type: 'UserAnswer', callId: 'q1', answers: ['SQLite'] });
    expect(restored.state).toBe('CallingLlm');
  });

  it('is an ordinary tool call when askUser is off', () => {
    const core = new AgentCore({});
    core.handleEvent(userInput('hi'));
    const actions = afterResponse(core, [ask('q1')]);
    expect(actions).toEqual([{ type: 'ExecuteTools', calls: [ask('q1')] }]);
  });

  it('refuses a configuration where the question tool would clash with another', () => {
    expect(() => new AgentCore({ askUser: true, tools: [{ name: 'ask_user' }] })).toThrow(
      AgentStatechartError,
    );
    expect(
      () =>
        new AgentCore({
          askUser: true,
          output: { schema: { type: 'object' }, name: 'ask_user' },
        }),
    ).toThrow(/output.name 'ask_user'/);
    expect(() => new AgentCore({ askUser: 'yes' as never })).toThrow(/askUser must be a boolean/);
  });
});
