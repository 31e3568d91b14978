/**
 * `SetTools`: the tools the model may call replaced at any time (an MCP server's list changed, or
 * it came up late). The next model request carries the new list wherever the chart stood; the
 * calls the model already made keep their course; a malformed list changes nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
  type ToolDefinition,
  type ToolSpec,
} from '../../src/index.js';
import {
  call,
  completed,
  hookDone,
  interrupt,
  llmError,
  retryFired,
  toolOk,
  userInput,
} from '../support/events.js';
import { afterResponse } from './afterResponse.js';

const schema = { type: 'object' as const, properties: { path: { type: 'string' } } };
const configured: ToolSpec[] = [
  { name: 'read_file', mutating: false, description: 'Read a file', inputSchema: schema },
  { name: 'edit_file', mutating: true, description: 'Edit a file', inputSchema: schema },
];
const fromServer: ToolSpec[] = [
  { name: 'read_file', mutating: false, description: 'Read a file', inputSchema: schema },
  {
    name: 'mcp__github__create_issue',
    mutating: true,
    description: 'Open an issue',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
  },
];
const serverDefinitions: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', input_schema: schema },
  {
    name: 'mcp__github__create_issue',
    description: 'Open an issue',
    input_schema: { type: 'object', properties: { title: { type: 'string' } } },
  },
];
const setTools = (tools: ToolSpec[]): AgentEvent => ({ type: 'SetTools', tools });

function newCore(config: AgentConfig = {}) {
  const diagnostics: AgentDiagnostic[] = [];
  const core = new AgentCore(
    { tools: configured, ...config },
    { onDiagnostic: (d) => diagnostics.push(d) },
  );
  return { core, diagnostics };
}

/** The tools of the one request among `actions`. */
function requestedTools(actions: AgentAction[]): ToolDefinition[] | undefined {
  const requests = actions.flatMap((action) =>
    action.type === 'SendLlmRequest' ? [action.request] : [],
  );
  expect(requests).toHaveLength(1);
  return requests[0]?.tools;
}

/**
 * Where a `SetTools` can arrive before the next request, and how the chart gets from there to
 * that request: each drives a core to the state, then to the request, answering what it asks.
 */
const places: Array<{
  where: string;
  state: string;
  config?: AgentConfig;
  reach: (core: AgentCore) => void;
  toRequest: (core: AgentCore) => AgentAction[];
}> = [
  {
    where: 'idle, before UserInput',
    state: 'WaitingForUserInput',
    reach: () => undefined,
    toRequest: (core) => core.handleEvent(userInput('go')),
  },
  {
    where: 'while the model streams, before its response asks for tools',
    state: 'CallingLlm',
    reach: (core) => core.handleEvent(userInput('go')),
    toRequest: (core) => {
      afterResponse(core, [call('t1', 'read_file')]);
      return core.handleEvent(toolOk('t1'));
    },
  },
  {
    where: 'while tools run, between two responses',
    state: 'ExecutingTools',
    reach: (core) => {
      core.handleEvent(userInput('go'));
      afterResponse(core, [call('t1', 'read_file')]);
    },
    toRequest: (core) => core.handleEvent(toolOk('t1')),
  },
  {
    where: 'while the post-tools hook runs',
    state: 'PostToolsHook',
    reach: (core) => {
      core.handleEvent(userInput('go'));
      afterResponse(core, [call('t1', 'edit_file')]);
      core.handleEvent(toolOk('t1'));
    },
    toRequest: (core) => core.handleEvent(hookDone()),
  },
  {
    where: 'while a failed call waits to be retried',
    state: 'Error',
    reach: (core) => {
      core.handleEvent(userInput('go'));
      core.handleEvent(llmError('overloaded'));
    },
    toRequest: (core) => core.handleEvent(retryFired),
  },
  {
    where: 'while the model call restarts after a restore (Resume)',
    state: 'CallingLlm',
    reach: (core) => core.handleEvent(userInput('go')),
    toRequest: (core) => core.handleEvent({ type: 'Resume' }),
  },
  {
    where: 'while an interrupt waits for the calls it aborted, input queued',
    state: 'WaitingForUserInput',
    reach: (core) => {
      core.handleEvent(userInput('go'));
      afterResponse(core, [call('t1', 'read_file')]);
      core.handleEvent(interrupt);
      core.handleEvent(userInput('next'));
      expect(core.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    },
    toRequest: (core) => core.handleEvent(toolOk('t1')),
  },
];

describe('SetTools', () => {
  it.each(places)(
    'reaches the next request when it arrives $where',
    ({ state, reach, toRequest }) => {
      const { core, diagnostics } = newCore();
      reach(core);
      expect(core.state).toBe(state);
      expect(core.handleEvent(setTools(fromServer))).toEqual([]);
      expect(diagnostics).toEqual([]);
      expect(core.state).toBe(state);
      expect(requestedTools(toRequest(core))).toEqual(serverDefinitions);
      expect(core.context.config.tools).toEqual(fromServer);
      expect(core.context.config.toolDefinitions).toEqual(serverDefinitions);
    },
  );

  it('sends no tools once the list is empty, and tools without a schema are not sent', () => {
    const { core } = newCore();
    core.handleEvent(setTools([{ name: 'internal', mutating: false }]));
    expect(requestedTools(core.handleEvent(userInput('go')))).toBeUndefined();
    core.handleEvent(setTools([]));
    afterResponse(core, []);
    expect(core.context.config.toolDefinitions).toEqual([]);
  });

  it('decides the calls of later responses by the new specs', () => {
    const { core } = newCore({ permissions: { mode: 'default' } });
    core.handleEvent(setTools(fromServer));
    core.handleEvent(userInput('go'));
    const actions = afterResponse(core, [call('t1', 'mcp__github__create_issue')]);
    // Mutating by its new spec: it asks in the default mode.
    expect(actions).toEqual([
      { type: 'RequestApproval', call: call('t1', 'mcp__github__create_issue') },
    ]);
  });
});

describe('SetTools while tools run', () => {
  it('leaves the running calls alone, even a call whose tool is gone', () => {
    const { core } = newCore();
    core.handleEvent(userInput('go'));
    afterResponse(core, [call('t1', 'edit_file'), call('t2', 'read_file')]);
    const runs = core.context.toolRuns;
    expect(core.handleEvent(setTools([{ name: 'read_file', mutating: false }]))).toEqual([]);
    expect(core.context.toolRuns).toBe(runs);
    expect(core.handleEvent(toolOk('t1', 'edited'))).toEqual([]);
    const next = core.handleEvent(toolOk('t2', 'text'));
    // edit_file, now without a spec, is mutating by Loom's default: the hook still runs.
    expect(next.map((action) => action.type)).toEqual(['RunPostToolsHook']);
    expect(core.context.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'edited' },
      { type: 'tool_result', tool_use_id: 't2', content: 'text' },
    ]);
  });

  it('keeps a call waiting for approval waiting, though the new spec would let it run', () => {
    const { core } = newCore({ permissions: { mode: 'default' } });
    core.handleEvent(userInput('go'));
    afterResponse(core, [call('t1', 'edit_file')]);
    expect(core.context.toolRuns[0]?.status).toBe('awaitingApproval');
    const actions = core.handleEvent(setTools([{ name: 'edit_file', mutating: false }]));
    expect(actions).toEqual([]);
    expect(core.context.toolRuns[0]?.status).toBe('awaitingApproval');
    expect(core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'allow' })).toEqual([
      { type: 'ExecuteTools', calls: [call('t1', 'edit_file')] },
    ]);
  });
});

describe('a malformed SetTools', () => {
  it.each<[string, object, string]>([
    ['no tools', {}, 'SetTools: tools must be an array of tool specs ({ name, … }); got undefined'],
    [
      'tools not an array',
      { tools: { name: 'bash' } },
      'SetTools: tools must be an array of tool specs ({ name, … }); got {"name":"bash"}',
    ],
    [
      'a spec that is not an object',
      { tools: ['bash'] },
      `SetTools: tools[0] must be a tool spec such as { name: 'read_file' }; got "bash"`,
    ],
    [
      'a spec that is an array',
      { tools: [['bash']] },
      `SetTools: tools[0] must be a tool spec such as { name: 'read_file' }; got ["bash"]`,
    ],
    [
      'a name the API refuses',
      { tools: [{ name: 'read_file' }, { name: 'two words' }] },
      'SetTools: tools[1].name must be a tool name (1 to 64 letters, digits, _ or -); got "two words"',
    ],
    [
      'no name',
      { tools: [{ mutating: true }] },
      'SetTools: tools[0].name must be a tool name (1 to 64 letters, digits, _ or -); got undefined',
    ],
    [
      'a name twice',
      { tools: [{ name: 'bash' }, { name: 'bash', mutating: true }] },
      "SetTools: tools[1].name 'bash' is given twice; tool names must be unique",
    ],
    [
      'a flag that is not a boolean',
      { tools: [{ name: 'deploy', alwaysAsk: 'yes' }] },
      'SetTools: tools[0].alwaysAsk must be a boolean when given; got "yes"',
    ],
    [
      'a description that is not a string',
      { tools: [{ name: 'deploy', description: 42 }] },
      'SetTools: tools[0].description must be a string when given; got 42',
    ],
    [
      'a schema that is not an object’s',
      { tools: [{ name: 'ls', inputSchema: { type: 'string' } }] },
      `SetTools: tools[0].inputSchema must be the JSON Schema of an object ({ type: 'object', … }) when given; got {"type":"string"}`,
    ],
    [
      'a schema that is an array',
      { tools: [{ name: 'ls', inputSchema: [] }] },
      `SetTools: tools[0].inputSchema must be the JSON Schema of an object ({ type: 'object', … }) when given; got []`,
    ],
  ])('is refused with %s, and changes nothing', (_name, fields, problem) => {
    const { core, diagnostics } = newCore();
    core.handleEvent(userInput('go'));
    const before = core.context;
    const actions = core.handleEvent({ type: 'SetTools', ...fields } as AgentEvent);
    expect(actions).toEqual([]);
    expect(diagnostics).toEqual([
      {
        code: 'MALFORMED_EVENT',
        message: problem,
        state: 'CallingLlm',
        event: { type: 'SetTools', ...fields },
      },
    ]);
    expect(core.context).toBe(before);
  });
});

describe('SetTools and snapshots', () => {
  it('makes a new config: the one of the previous snapshot, and the caller’s, do not change', () => {
    const tools = [...configured];
    const config: AgentConfig = { tools };
    const core = new AgentCore(config);
    const other = new AgentCore(config);
    const before = core.context;
    const beforeConfig = before.config;
    const beforeJson = JSON.stringify(beforeConfig);
    core.handleEvent(setTools(fromServer));
    expect(core.context.config).not.toBe(beforeConfig);
    expect(before.config).toBe(beforeConfig);
    expect(JSON.stringify(beforeConfig)).toBe(beforeJson);
    expect(tools).toEqual(configured);
    expect(other.context.config.tools).toEqual(configured);
    // The rest of the config is as it was.
    const { tools: _new, toolDefinitions: _newDefinitions, ...rest } = core.context.config;
    const { tools: _old, toolDefinitions: _oldDefinitions, ...restBefore } = beforeConfig;
    expect(rest).toEqual(restBefore);
  });

  it('keeps no reference to the caller’s list: changing it later changes nothing', () => {
    const { core } = newCore();
    const list: ToolSpec[] = [{ name: 'read_file', mutating: false, inputSchema: schema }];
    core.handleEvent(setTools(list));
    list.push({ name: 'bash', mutating: true });
    expect(core.context.config.tools).toEqual([
      { name: 'read_file', mutating: false, inputSchema: schema },
    ]);
  });

  it('replays: the same events give the same actions and the same context', () => {
    const events: AgentEvent[] = [
      setTools(fromServer),
      userInput('go'),
      completed(null, [call('t1', 'mcp__github__create_issue', { title: 'bug' })]),
      setTools(configured),
      toolOk('t1', 'opened #1'),
      hookDone(false),
    ];
    const first = newCore().core;
    const second = newCore().core;
    for (const event of events) {
      expect(second.handleEvent(event)).toEqual(first.handleEvent(event));
      expect(second.context).toEqual(first.context);
    }
    expect(second.snapshot()).toEqual(first.snapshot());
    expect(first.context.config.toolDefinitions).toEqual(
      configured.map(({ name, description, inputSchema }) => ({
        name,
        description,
        input_schema: inputSchema,
      })),
    );
  });

  it('is not stored: a restored agent runs with the tools of the config it is restored with', () => {
    const { core } = newCore();
    core.handleEvent(setTools(fromServer));
    const restored = AgentCore.fromSnapshot(
      JSON.parse(JSON.stringify(core.snapshot())) as ReturnType<AgentCore['snapshot']>,
      { tools: configured },
    );
    expect(restored.context.config.tools).toEqual(configured);
  });
});
