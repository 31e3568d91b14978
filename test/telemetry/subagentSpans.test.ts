/**
 * OpenTelemetry spans of a tree of agents: each subagent's turn is a child of its task call's
 * `execute_tool task` span, in its parent's trace, two levels deep and for parallel tasks, under
 * its own name; a stored session's subagents name their own sessions as their conversations. In
 * actor mode through the real SDK against the local Messages API server, and in pure mode.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { memoryTracing } from '../support/memoryTracing.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCore, type AgentEvent, AgentTracer, type Message } from '../../src/index.js';
import { reply, type ScriptFunction } from '../../src/testing/index.js';
import { useScriptedAgents } from '../agent/scriptedAgents.js';
import { userInput } from '../support/events.js';
import { tree } from './spanTree.js';
import { systemText } from '../support/agentRequests.js';

const scripted = useScriptedAgents('subagent-spans-');
const { exporter, provider, tracer } = memoryTracing('agent-statechart-test');
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
afterEach(() => exporter.reset());

const CHAT = 'chat claude-sonnet-5-5';

const AGENTS = {
  researcher: {
    description: 'Researches one topic and reports',
    system: 'You are the researcher.',
    tools: ['look_up'],
  },
  checker: { description: 'Checks one finding', system: 'You are the checker.', tools: [] },
};

function firstPrompt(messages: readonly Message[]): string {
  const content = messages[0]?.content;
  return typeof content === 'string' ? content : '';
}

/**
 * The lead hands alpha and beta to two researchers at once (`call_alpha`, `call_beta`); the alpha
 * researcher hands a check to the checker (`call_check`) while it looks a word up.
 */
const treeModel: ScriptFunction = (request) => {
  const system = systemText(request.system);
  const messages = request.messages as Message[];
  if (system.includes('checker')) return reply('checked: alpha holds');
  if (system.includes('researcher')) {
    if (!firstPrompt(messages).includes('alpha')) return reply('beta: researched');
    if (messages.length > 1) return reply('alpha: researched');
    return reply([
      {
        type: 'tool_use',
        id: 'call_check',
        name: 'task',
        input: { agent: 'checker', prompt: 'check alpha' },
      },
      { type: 'tool_use', id: 'call_look', name: 'look_up', input: { word: 'alpha' } },
    ]);
  }
  if (messages.length > 1) return reply('Both done.');
  return reply([
    {
      type: 'tool_use',
      id: 'call_alpha',
      name: 'task',
      input: { agent: 'researcher', prompt: 'research alpha' },
    },
    {
      type: 'tool_use',
      id: 'call_beta',
      name: 'task',
      input: { agent: 'researcher', prompt: 'research beta' },
    },
  ]);
};

/** Siblings by name, then by call id: parallel work starts in no fixed order. */
function byName(a: ReadableSpan, b: ReadableSpan): number {
  const key = (span: ReadableSpan) => `${span.name}\u0000${callIdOf(span) ?? ''}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

function callIdOf(span: ReadableSpan): string | undefined {
  const id = span.attributes['gen_ai.tool.call.id'];
  return typeof id === 'string' ? id : undefined;
}

/** The tree every run of {@link treeModel} traces, siblings {@link byName}. */
const TREE = [
  {
    'invoke_agent lead': [
      CHAT,
      CHAT,
      {
        'execute_tool task': [
          {
            'invoke_agent researcher': [
              CHAT,
              CHAT,
              'execute_tool look_up',
              { 'execute_tool task': [{ 'invoke_agent checker': [CHAT] }] },
            ],
          },
        ],
      },
      { 'execute_tool task': [{ 'invoke_agent researcher': [CHAT] }] },
    ],
  },
];

/** The spans of one run, and how to read them. */
function spansOfRun() {
  const spans = exporter.getFinishedSpans();
  const taskSpan = (callId: string) => {
    const found = spans.filter(
      (span) => span.name === 'execute_tool task' && callIdOf(span) === callId,
    );
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  /** The one span whose parent is `parent`, of those named `name`. */
  const childOf = (parent: ReadableSpan, name: string) => {
    const found = spans.filter(
      (span) =>
        span.name === name && span.parentSpanContext?.spanId === parent.spanContext().spanId,
    );
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  /** `span` and every span below it. */
  const below = (span: ReadableSpan): ReadableSpan[] => [
    span,
    ...spans
      .filter((other) => other.parentSpanContext?.spanId === span.spanContext().spanId)
      .flatMap(below),
  ];
  return { spans, taskSpan, childOf, below };
}

describe('OpenTelemetry spans of subagents', () => {
  it('nests each subagent’s turn under its task call’s span, two levels deep, in one trace', async () => {
    const agent = await scripted.start(treeModel, {
      agents: AGENTS,
      store: scripted.temp.store,
      sessionId: 'lead-1',
      telemetry: { tracer, agentName: 'lead', recordContent: true },
    });
    expect(await agent.run('Research alpha and beta', { timeoutMs: 30_000 })).toBe('Both done.');

    const { spans, taskSpan, childOf, below } = spansOfRun();
    expect(tree(spans, byName)).toEqual(TREE);
    const [lead] = spans.filter((span) => span.name === 'invoke_agent lead');
    const traceId = lead!.spanContext().traceId;
    expect(spans.every((span) => span.spanContext().traceId === traceId)).toBe(true);

    // Each task call's span is the parent of its subagent's turn, whose spans are the subagent's.
    const alpha = childOf(taskSpan('call_alpha'), 'invoke_agent researcher');
    const beta = childOf(taskSpan('call_beta'), 'invoke_agent researcher');
    expect(taskSpan('call_alpha').parentSpanContext?.spanId).toBe(lead!.spanContext().spanId);
    const check = taskSpan('call_check');
    expect(check.parentSpanContext?.spanId).toBe(alpha.spanContext().spanId);
    const checker = childOf(check, 'invoke_agent checker');
    expect(childOf(checker, CHAT).attributes['gen_ai.agent.name']).toBe('checker');
    /** The agent names of a turn's spans, those of its subagents' turns left out. */
    const agentNames = (turn: ReadableSpan, ...subagents: ReadableSpan[]) => {
      const theirs = new Set(subagents.flatMap(below));
      return new Set(
        below(turn)
          .filter((span) => !theirs.has(span))
          .map((span) => span.attributes['gen_ai.agent.name']),
      );
    };
    expect(agentNames(lead!, alpha, beta)).toEqual(new Set(['lead']));
    expect(agentNames(alpha, checker)).toEqual(new Set(['researcher']));
    expect(agentNames(beta)).toEqual(new Set(['researcher']));
    expect(agentNames(checker)).toEqual(new Set(['checker']));
    expect(below(lead!)).toHaveLength(spans.length);

    // Each subagent's conversation is the session it runs in, whose own place in a trace (the
    // one a later process resuming it alone would use) is linked.
    expect(alpha.attributes['gen_ai.conversation.id']).toBe('lead-1/call_alpha');
    expect(beta.attributes['gen_ai.conversation.id']).toBe('lead-1/call_beta');
    expect(checker.attributes['gen_ai.conversation.id']).toBe('lead-1/call_alpha/call_check');
    for (const turn of [alpha, beta, checker]) {
      expect(turn.links).toHaveLength(1);
      expect(turn.links[0]!.context.traceId).not.toBe(traceId);
    }
    expect(lead!.links).toEqual([]);

    // Each subagent's session keeps its own task call's span, for a process resuming it to go
    // on under (a grandchild's is its own call's, not the one its parent's session keeps).
    for (const [session, callId] of [
      ['lead-1/call_alpha', 'call_alpha'],
      ['lead-1/call_beta', 'call_beta'],
      ['lead-1/call_alpha/call_check', 'call_check'],
    ] as const) {
      const { traceId: keptTrace, spanId, traceFlags } = taskSpan(callId).spanContext();
      const stored = await scripted.temp.store.load(session);
      expect(stored?.header.metadata?.traceParent).toEqual({
        traceId: keptTrace,
        spanId,
        traceFlags,
      });
    }
    expect((await scripted.temp.store.load('lead-1'))?.header.metadata).toBeUndefined();

    // The parent's recordContent holds for its subagents.
    const alphaChats = below(alpha).filter(
      (span) => span.name === CHAT && span.parentSpanContext?.spanId === alpha.spanContext().spanId,
    );
    expect(alphaChats[0]?.attributes['gen_ai.input.messages']).toContain('research alpha');
  });

  it('nests subagents without a stored session too, and traces none of an untraced agent', async () => {
    const traced = await scripted.start(treeModel, {
      agents: AGENTS,
      telemetry: { tracer, agentName: 'lead' },
    });
    await traced.run('Research alpha and beta', { timeoutMs: 30_000 });
    const { spans, taskSpan, childOf } = spansOfRun();
    expect(tree(spans, byName)).toEqual(TREE);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(spans.some((span) => 'gen_ai.conversation.id' in span.attributes)).toBe(false);
    expect(childOf(taskSpan('call_beta'), 'invoke_agent researcher').links).toEqual([]);
    // Content stays off, as the parent's is.
    expect(spans.some((span) => 'gen_ai.input.messages' in span.attributes)).toBe(false);

    // The traced agent's work winds down first (a subagent's last spans end as it shuts down).
    await traced.shutdown();
    const tracedRun = new Set(
      exporter.getFinishedSpans().map((span) => span.spanContext().traceId),
    );
    exporter.reset();
    // Were a subagent of an untraced agent traced anyway, the global provider would see it.
    trace.setGlobalTracerProvider(provider);
    try {
      const untraced = scripted.open({ agents: AGENTS });
      await untraced.run('Research alpha and beta', { timeoutMs: 30_000 });
      await untraced.shutdown();
    } finally {
      trace.disable();
    }
    // The package's own spans, each naming its agent (the Anthropic SDK traces its own calls
    // with the global provider, which the SDK transport shows).
    const others = exporter
      .getFinishedSpans()
      .filter((span) => !tracedRun.has(span.spanContext().traceId))
      .filter((span) => 'gen_ai.agent.name' in span.attributes);
    expect(others.map((span) => span.name)).toEqual([]);
  });

  it('puts a pure-mode child’s turn under the span of its parent’s task call', () => {
    const parentCore = new AgentCore({
      agents: { researcher: { description: 'Researches one topic and reports' } },
    });
    const parent = new AgentTracer({ tracer, agentName: 'lead', conversationId: 'pure-lead' });
    const step = (core: AgentCore, traced: AgentTracer, event: AgentEvent) => {
      const actions = core.handleEvent(event);
      traced.observe(event, actions);
      return actions;
    };
    step(parentCore, parent, userInput('Research alpha'));
    const actions = step(parentCore, parent, {
      type: 'LlmCompleted',
      response: {
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'call_alpha',
              name: 'task',
              input: { agent: 'researcher', prompt: 'research alpha' },
            },
          ],
        },
        stopReason: 'tool_use',
      },
    });
    expect(actions.map((action) => action.type)).toContain('StartSubagent');

    const taskContext = parent.toolContext('call_alpha');
    expect(taskContext).toBeDefined();
    const childCore = new AgentCore({});
    const child = new AgentTracer({
      tracer,
      agentName: 'researcher',
      conversationId: 'pure-lead/call_alpha',
      parentContext: taskContext,
    });
    step(childCore, child, userInput('research alpha'));
    step(childCore, child, {
      type: 'LlmCompleted',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: 'alpha: researched' }] },
        stopReason: 'end_turn',
      },
    });
    step(parentCore, parent, {
      type: 'ToolCompleted',
      callId: 'call_alpha',
      outcome: { status: 'success', output: 'alpha: researched' },
    });
    expect(parent.toolContext('call_alpha')).toBeUndefined();
    step(parentCore, parent, {
      type: 'LlmCompleted',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        stopReason: 'end_turn',
      },
    });

    const spans = exporter.getFinishedSpans();
    expect(tree(spans, byName)).toEqual([
      {
        'invoke_agent lead': [
          CHAT,
          CHAT,
          { 'execute_tool task': [{ 'invoke_agent researcher': [CHAT] }] },
        ],
      },
    ]);
    const traceIds = new Set(spans.map((span) => span.spanContext().traceId));
    expect(traceIds.size).toBe(1);
  });
});
