/**
 * Options an embedder passes take effect, or are refused at once: a config value outside its
 * closed set is an error naming the field and what it takes; a permission mode given for a stored
 * session wins over the stored one (and is recorded as the chart's own event), while a reopened
 * session without one keeps its own; a transcript to start from whose calls were never answered
 * is answered before the first request, and the agent says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Agent,
  type AgentConfig,
  AgentCore,
  type AgentDiagnostic,
  type AgentStatechartError,
  createAgent,
  type CreateAgentOptions,
  findTranscriptViolations,
  type Message,
  type PermissionMode,
} from '../../src/index.js';
import { ASK_USER_DEFINITION } from '../../src/machine/askUser.js';
import { subagentToolDefinition } from '../../src/machine/subagents.js';
import { resolveConfig } from '../../src/machine/index.js';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { useTempStore } from '../support/tempStore.js';

let server: MessagesApiServer | undefined;
const agents: Agent[] = [];
const temp = useTempStore('options-', async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.shutdown({ timeoutMs: 1_000 })));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function agentWith(options: CreateAgentOptions): Agent {
  const agent = createAgent({
    workspace: temp.directory,
    autoCommit: false,
    tools: [],
    anthropic: { baseURL: server?.baseURL ?? 'http://127.0.0.1:9', apiKey: 'test-key' },
    ...options,
  });
  agents.push(agent);
  return agent;
}

function refusal(run: () => unknown): AgentStatechartError {
  try {
    run();
  } catch (error) {
    return error as AgentStatechartError;
  }
  throw new Error('expected a refusal');
}

describe('a config value outside its closed set', () => {
  it('is refused by createAgent and AgentCore alike, naming the field and the values it takes', () => {
    const mode = 'bypass' as PermissionMode;
    for (const run of [
      () => agentWith({ permissions: { mode } }),
      () => new AgentCore({ permissions: { mode } }),
    ]) {
      const error = refusal(run);
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toBe(
        "permissions.mode must be one of plan, default, acceptEdits, bypassPermissions; got 'bypass'",
      );
    }
    expect(agents).toEqual([]);
  });

  it('is refused for the other fields of a set shape too', () => {
    expect(refusal(() => new AgentCore({ model: '' })).message).toMatch(
      /^model must be a non-empty string/,
    );
    expect(
      refusal(() => new AgentCore({ permissions: { mode: 'plan', deny: 'bash' as never } }))
        .message,
    ).toBe("permissions.deny must be an array of tool names; got 'bash'");
    expect(refusal(() => new AgentCore({ retry: { factor: -2 } })).message).toBe(
      'retry.factor must be a finite, non-negative number; got -2',
    );
    expect(refusal(() => new AgentCore({ tools: [{ name: '' }] })).message).toMatch(
      /^each of tools must be a spec with a name/,
    );
  });
});

describe("the chart's config given to createAgent", () => {
  it('reaches the chart whole: every field of it takes effect', async () => {
    const config = {
      maxRetries: 5,
      model: 'claude-haiku-4-5',
      maxTokens: 1234,
      system: 'Be brief.',
      retry: { baseDelayMs: 10, factor: 3, maxDelayMs: 99, seed: 7 },
      permissions: { mode: 'plan' as const, allow: ['x'], deny: ['y'] },
      toolGraceMs: 321,
      maxTurns: 9,
      maxBudgetUsd: 0.5,
      pricing: { 'my-model': { input: 1, output: 2, cacheWrite: 3, cacheRead: 4 } },
      request: { metadata: { user_id: 'u-1' } },
      promptCache: 'off' as const,
      askUser: true,
      output: { schema: { type: 'object', properties: { answer: { type: 'string' } } } },
      compaction: {
        contextWindow: 500_000,
        threshold: 0.6,
        keepRecentTokens: 9000,
        instructions: 'Keep the paths.',
      },
      agents: {
        reviewer: {
          description: 'Reviews a change',
          system: 'You review.',
          model: 'claude-haiku-4-5',
          maxTurns: 3,
        },
      },
    } satisfies Required<Omit<AgentConfig, 'tools' | 'hooks'>>;
    // The chart's hook switches come from the hook functions createAgent is given.
    const agent = agentWith({ ...config, hooks: { preToolUse: () => undefined } });
    await agent.ready;
    expect(agent.context.config).toEqual({
      ...resolveConfig({ ...config, hooks: { preToolUse: true } }),
      tools: [],
      toolDefinitions: [ASK_USER_DEFINITION, subagentToolDefinition(config.agents)],
    });
    expect(agent.context.permissionMode).toBe('plan');
  });
});

describe('a stored session reopened', () => {
  /** A session stored after one turn in `mode`. */
  async function storedIn(mode: PermissionMode): Promise<void> {
    server = await startMessagesApiServer({ script: [reply('Hello.')] });
    const first = agentWith({ store: temp.store, sessionId: 's1', permissions: { mode } });
    first.send('hi');
    await first.waitUntilIdle({ timeoutMs: 30_000 });
    expect(first.context.permissionMode).toBe(mode);
    await first.shutdown();
  }

  it('takes the permission mode the caller names, and records it as the chart took it', async () => {
    await storedIn('default');
    const reopened = agentWith({
      store: temp.store,
      sessionId: 's1',
      permissions: { mode: 'bypassPermissions' },
    });
    await reopened.ready;
    expect(reopened.context.permissionMode).toBe('bypassPermissions');
    await reopened.shutdown();

    const events = (await temp.store.entries('s1'))
      .filter((entry) => entry.kind === 'event')
      .map((entry) => entry.data);
    expect(events).toContainEqual({ type: 'SetPermissionMode', mode: 'bypassPermissions' });
    // Opened once more with no mode named: the recorded one stands.
    const again = agentWith({ store: temp.store, sessionId: 's1' });
    await again.ready;
    expect(again.context.permissionMode).toBe('bypassPermissions');
  });

  it('keeps its own mode when the caller names none, and records nothing for it', async () => {
    await storedIn('plan');
    const before = (await temp.store.entries('s1')).length;
    const reopened = agentWith({ store: temp.store, sessionId: 's1' });
    await reopened.ready;
    expect(reopened.context.permissionMode).toBe('plan');
    await reopened.waitUntilIdle();
    const after = await temp.store.entries('s1', { after: before });
    expect(
      after.filter((entry) => entry.kind === 'event').map((entry) => entry.data.type),
    ).not.toContain('SetPermissionMode');
  });
});

describe('a transcript to start from with calls never answered', () => {
  const crashed: Message[] = [
    { role: 'user', content: 'List the files, then read one' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Listing.' },
        { type: 'tool_use', id: 'toolu_a', name: 'list_files', input: {} },
        { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'x' } },
      ],
    },
  ];

  it('is answered before the first request, and createAgent says so at start', async () => {
    server = await startMessagesApiServer({ script: [reply('Starting over.')] });
    const agent = agentWith({ messages: crashed });
    const diagnostics: AgentDiagnostic[] = [];
    agent.on('diagnostic', (diagnostic) => diagnostics.push(diagnostic as AgentDiagnostic));
    await agent.ready;
    expect(diagnostics.map((d) => d.code)).toContain('TRANSCRIPT_REPAIRED');
    expect(diagnostics.find((d) => d.code === 'TRANSCRIPT_REPAIRED')?.message).toMatch(
      /left tool_use toolu_a, toolu_b without a tool_result; they were answered as interrupted/,
    );

    agent.send('Go on');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const [request] = server.requests;
    const sent = request!.body.messages as Message[];
    expect(findTranscriptViolations(sent)).toEqual([]);
    expect(sent[2]).toEqual({
      role: 'user',
      content: ['toolu_a', 'toolu_b'].map((id) => ({
        type: 'tool_result',
        tool_use_id: id,
        content:
          'interrupted: the transcript this agent started from has no result for this call; it may or may not have taken effect',
        is_error: true,
      })),
    });
    expect(sent[3]).toEqual({ role: 'user', content: 'Go on' });
  });

  it('is answered in pure mode too, in the user message that follows, before its own blocks', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const partlyAnswered: Message[] = [
      ...crashed,
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'hello' }],
      },
    ];
    const core = new AgentCore(
      {},
      { messages: partlyAnswered, onDiagnostic: (d) => diagnostics.push(d) },
    );
    expect(diagnostics).toEqual([
      {
        code: 'TRANSCRIPT_REPAIRED',
        message: expect.stringContaining(
          'left tool_use toolu_a without a tool_result; it was answered',
        ) as string,
        state: 'WaitingForUserInput',
        event: undefined,
      },
    ]);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
    expect(core.context.messages[2]?.content).toEqual([
      expect.objectContaining({ tool_use_id: 'toolu_a', is_error: true }),
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'hello' },
    ]);
    // The caller's array is left as it was.
    expect(partlyAnswered).toHaveLength(3);
    expect(partlyAnswered[2]?.content).toHaveLength(1);
  });

  it('is taken as it is, with nothing said, when every call has its result', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const whole: Message[] = [
      ...crashed,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'x' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'hello' },
        ],
      },
    ];
    const core = new AgentCore({}, { messages: whole, onDiagnostic: (d) => diagnostics.push(d) });
    expect(diagnostics).toEqual([]);
    expect(core.context.messages).toEqual(whole);
    expect(core.context.messages).not.toBe(whole);
  });
});
