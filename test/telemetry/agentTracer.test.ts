/**
 * OpenTelemetry spans of an agent (GenAI semantic conventions), through the real SDK against the
 * local Messages API server, exported to the SDK's in-memory exporter. Attribute names are checked
 * against `@opentelemetry/semantic-conventions`: a name the conventions do not have fails.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { memoryTracing } from '../support/memoryTracing.js';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import * as conventions from '@opentelemetry/semantic-conventions/incubating';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AgentCore, type AgentEvent, AgentTracer, defineTool } from '../../src/index.js';
import { overloaded, reply } from '../../src/testing/index.js';
import { lookUp, useScriptedAgents } from '../agent/scriptedAgents.js';
import { userInput } from '../support/events.js';
import { tree } from './spanTree.js';

const scripted = useScriptedAgents('telemetry-');
const { exporter, tracer } = memoryTracing('agent-statechart-test');
// A service's spans reach the agent's through the active context, as with the Node SDK.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
afterEach(() => exporter.reset());

/** Every attribute name of the conventions (incubating included), and the error type. */
const CONVENTION_NAMES = new Set<string>([
  ATTR_ERROR_TYPE,
  ...Object.entries(conventions)
    .filter(([name, value]) => name.startsWith('ATTR_') && typeof value === 'string')
    .map(([, value]) => value as string),
]);

/** A mutating tool that runs until it is cancelled. */
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy the service',
  input: z.object({}),
  mutating: true,
  execute: (_input, { signal }) =>
    new Promise((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new Error('deploy stopped')), { once: true }),
    ),
});

/** A model response of text that ends the turn. */
function completed(text: string): AgentEvent {
  return {
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      stopReason: 'end_turn',
    },
  };
}

describe('OpenTelemetry spans', () => {
  it('one turn with a retry, parallel tools, an approval and an interrupt', async () => {
    const agent = await scripted.start(
      [
        overloaded(),
        reply([
          { type: 'tool_use', name: 'look_up', input: { word: 'span' } },
          { type: 'tool_use', name: 'deploy', input: {} },
        ]),
      ],
      {
        tools: [lookUp, deploy],
        retryDelayScale: 0.001,
        sessionId: 'session-7',
        store: scripted.temp.store,
        telemetry: { tracer, agentName: 'release-bot' },
        permissions: { mode: 'default' },
      },
    );
    agent.on('approvalRequest', ({ call }) => agent.approve(call.id));
    agent.on('toolStart', ({ call }) => {
      if (call.name === 'deploy') setTimeout(() => agent.interrupt(), 20);
    });
    agent.send('Ship it.');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });

    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toEqual([
      {
        'invoke_agent release-bot': [
          'chat claude-sonnet-5-5',
          'chat claude-sonnet-5-5',
          'execute_tool look_up',
          'execute_tool deploy',
        ],
      },
    ]);
    const [turn] = spans.filter((span) => span.name.startsWith('invoke_agent'));
    expect(turn?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.agent.name': 'release-bot',
      'gen_ai.conversation.id': 'session-7',
    });
    expect(turn?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'agent_statechart.retry',
        expect.objectContaining({
          'agent_statechart.retry.attempt': 2,
          'error.type': 'overloaded',
        }),
      ],
      [
        'agent_statechart.approval_requested',
        expect.objectContaining({ 'gen_ai.tool.name': 'deploy' }),
      ],
      [
        'agent_statechart.approval',
        expect.objectContaining({ 'agent_statechart.approval.decision': 'allow' }),
      ],
      ['agent_statechart.interrupt', {}],
    ]);

    const [failed, answered] = spans.filter((span) => span.name.startsWith('chat'));
    expect(failed?.attributes).toMatchObject({
      'error.type': 'overloaded',
      'agent_statechart.attempt': 1,
    });
    expect(failed?.status.code).toBe(2);
    expect(answered?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude-sonnet-5-5',
      'gen_ai.request.max_tokens': expect.any(Number) as number,
      'gen_ai.response.id': expect.stringMatching(/^msg_/) as string,
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.usage.output_tokens': expect.any(Number) as number,
      'gen_ai.response.time_to_first_chunk': expect.any(Number) as number,
    });
    expect(answered?.attributes).not.toHaveProperty('gen_ai.input.messages');

    const deploySpan = spans.find((span) => span.name === 'execute_tool deploy');
    expect(deploySpan?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'deploy',
      'error.type': 'tool_error',
    });
    expect(spans.find((span) => span.name === 'execute_tool look_up')?.status.code).toBe(0);

    const names = spans.flatMap((span) => Object.keys(span.attributes));
    expect(
      names.filter((name) => !name.startsWith('agent_statechart.') && !CONVENTION_NAMES.has(name)),
    ).toEqual([]);
  });

  it('records message content and tool arguments only when asked', async () => {
    const agent = await scripted.start(
      [reply([{ type: 'tool_use', name: 'look_up', input: { word: 'trace' } }]), reply('A trace.')],
      { telemetry: { tracer, recordContent: true }, system: 'Be brief.' },
    );
    agent.send('What is a trace?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const spans = exporter.getFinishedSpans();
    const chat = spans.find((span) => span.name.startsWith('chat'));
    expect(chat?.attributes['gen_ai.input.messages']).toContain('What is a trace?');
    expect(chat?.attributes['gen_ai.system_instructions']).toContain('Be brief.');
    const tool = spans.find((span) => span.name === 'execute_tool look_up');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"word":"trace"}',
      'gen_ai.tool.call.result': '"trace: a word"',
    });
  });

  it('puts a session’s turn in one trace, whatever process drives it', () => {
    /** A pure-mode step of a process with its own tracer, on the same session. */
    const drive = (core: AgentCore, traced: AgentTracer, event: AgentEvent) =>
      traced.observe(event, core.handleEvent(event));
    const first = new AgentCore({});
    const crashed = new AgentTracer({ tracer, conversationId: 'session-9' });
    drive(first, crashed, userInput('one'));
    drive(first, crashed, { type: 'LlmError', error: { kind: 'overloaded', message: 'busy' } });
    // The first process dies waiting to retry; another takes the session where it was left.
    const second = AgentCore.fromSnapshot(first.snapshot());
    const resumed = new AgentTracer({ tracer, conversationId: 'session-9' });
    drive(second, resumed, { type: 'RetryTimeoutFired' });
    drive(second, resumed, completed('One.'));
    drive(second, resumed, userInput('two'));
    drive(second, resumed, completed('Two.'));
    drive(
      new AgentCore({}),
      new AgentTracer({ tracer, conversationId: 'other' }),
      userInput('one'),
    );

    const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
    const spans = exporter.getFinishedSpans();
    const chats = spans.filter((span) => span.name.startsWith('chat')).map(traceOf);
    const turns = spans.filter((span) => span.name.startsWith('invoke_agent')).map(traceOf);
    // The failed call of the first process, the retry of the second, and the second turn's call.
    expect(chats).toHaveLength(3);
    expect(chats[0]).toBe(chats[1]);
    expect(chats[2]).not.toBe(chats[0]);
    // The first process never ended its turn; the second's ends both of its own.
    expect(turns).toEqual([chats[0], chats[2]]);
  });

  it('links a caller’s active span to the session’s turn', () => {
    const caller = tracer.startSpan('POST /sessions/7/messages');
    const core = new AgentCore({});
    const traced = new AgentTracer({ tracer, conversationId: 'session-7' });
    context.with(trace.setSpan(context.active(), caller), () =>
      traced.observe(userInput('hi'), core.handleEvent(userInput('hi'))),
    );
    traced.observe(completed('Hello.'), core.handleEvent(completed('Hello.')));
    caller.end();
    const turn = exporter.getFinishedSpans().find((span) => span.name.startsWith('invoke_agent'));
    expect(turn?.links.map((link) => link.context.spanId)).toEqual([caller.spanContext().spanId]);
    expect(turn?.spanContext().traceId).not.toBe(caller.spanContext().traceId);
  });

  it('traces pure mode from its events and actions', () => {
    const core = new AgentCore({});
    const traced = new AgentTracer({ tracer, conversationId: 'pure-1' });
    const step = (event: Parameters<AgentCore['handleEvent']>[0]) =>
      traced.observe(event, core.handleEvent(event));
    step(userInput('hi'));
    step({
      type: 'LlmCompleted',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        stopReason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 90 },
      },
    });
    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toEqual([{ 'invoke_agent agent-statechart': ['chat claude-sonnet-5-5'] }]);
    expect(spans[0]?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.cache_read.input_tokens': 90,
      'gen_ai.usage.cache_creation.input_tokens': 0,
      'gen_ai.conversation.id': 'pure-1',
    });
  });
});
