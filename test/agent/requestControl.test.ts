/**
 * What the model request carries beyond the transcript, as the local Messages API server
 * receives it from the real SDK's request (over the transport the run uses): extended thinking
 * and effort, request fields a user sets, the system prompt as text or blocks, and prompt-cache
 * breakpoints placed by the automatic policy, by the caller, or not at all. Thinking blocks and
 * their signatures, interleaved with tool calls, go back to the API as the model wrote them.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentCore,
  type CreateAgentOptions,
  toMessageCreateParams,
  toRequestHeaders,
} from '../../src/index.js';
import { reply, type Script } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('request-');

/** Runs one turn and returns the bodies the test's server has received so far. */
async function bodiesOf(script: Script, options: CreateAgentOptions = {}) {
  const agent = await scripted.start(script, options);
  agent.send('What does cache mean?');
  await agent.waitUntilIdle({ timeoutMs: 30_000 });
  const bodies = scripted
    .server()
    .requests.map((request) => request.body as Record<string, unknown>);
  return { agent, bodies };
}

describe('the model request', () => {
  it('carries thinking, effort and the other fields the request option sets, the chart’s own winning', async () => {
    const { bodies } = await bodiesOf([reply('Cached means kept.')], {
      maxTokens: 8_000,
      request: {
        thinking: { type: 'enabled', budget_tokens: 2_048 },
        output_config: { effort: 'high' },
        metadata: { user_id: 'user-42' },
        stop_sequences: ['END'],
        tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      },
    });
    expect(bodies[0]).toMatchObject({
      model: 'claude-sonnet-5-5',
      max_tokens: 8_000,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 2_048 },
      output_config: { effort: 'high' },
      metadata: { user_id: 'user-42' },
      stop_sequences: ['END'],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
  });

  it('sends thinking and its signature back as written, interleaved with tool calls', async () => {
    const { bodies, agent } = await bodiesOf(
      [
        reply([
          { type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' },
          { type: 'tool_use', name: 'look_up', input: { word: 'cache' } },
        ]),
        reply([
          { type: 'thinking', thinking: 'The tool says it is a word.', signature: 'sig-2' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'It is a word.' },
        ]),
      ],
      { request: { thinking: { type: 'adaptive' } } },
    );
    const assistant = (bodies[1]!.messages as Array<{ role: string; content: unknown }>)[1]!;
    expect(assistant.content).toEqual([
      { type: 'thinking', thinking: 'I should look it up.', signature: 'sig-1' },
      expect.objectContaining({ type: 'tool_use', name: 'look_up', input: { word: 'cache' } }),
    ]);
    expect(agent.context.messages.at(-1)?.content).toEqual([
      { type: 'thinking', thinking: 'The tool says it is a word.', signature: 'sig-2' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'It is a word.' },
    ]);
  });

  it('marks the end of the system prompt and the request’s last block for the cache, by default', async () => {
    const { bodies } = await bodiesOf([reply('Yes.')], { system: 'Be brief.' });
    expect(bodies[0]).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      cache_control: { type: 'ephemeral' },
    });
  });

  it('keeps the caller’s own breakpoints, and marks nothing when told not to', async () => {
    const own = await bodiesOf([reply('Yes.'), reply('Yes.')], {
      system: [
        { type: 'text', text: 'Stable rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: 'Today is Saturday.' },
      ],
    });
    expect(own.bodies[0]!.system).toEqual([
      { type: 'text', text: 'Stable rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'Today is Saturday.' },
    ]);
    // A second agent on the same scripted model.
    const off = await bodiesOf([], { system: 'Be brief.', promptCache: 'off' });
    expect(off.bodies[1]!.system).toBe('Be brief.');
    expect(off.bodies[1]).not.toHaveProperty('cache_control');
  });
});

describe('beta headers', () => {
  it('go as one anthropic-beta header, never in the body', async () => {
    const { bodies } = await bodiesOf([reply('Long.')], {
      request: { betas: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'] },
    });
    const [request] = scripted.server().requests;
    expect(request?.headers['anthropic-beta']).toBe(
      'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
    );
    expect(bodies[0]).not.toHaveProperty('betas');
  });

  it('are left off when there are none, and a hand-built request gets them from toRequestHeaders', async () => {
    await bodiesOf([reply('Short.')]);
    expect(scripted.server().requests[0]?.headers).not.toHaveProperty('anthropic-beta');
    const request = {
      model: 'claude-sonnet-5-5',
      maxTokens: 100,
      messages: [{ role: 'user' as const, content: 'hi' }],
      fields: { betas: ['files-api-2025-04-14'] },
    };
    expect(toRequestHeaders(request)).toEqual({ 'anthropic-beta': 'files-api-2025-04-14' });
    expect(toMessageCreateParams(request)).not.toHaveProperty('betas');
  });
});

describe('the request option', () => {
  it('is refused when it sets a field the chart sets, or thinking it cannot afford', () => {
    expect(() => new AgentCore({ request: { model: 'x' } })).toThrow(
      'request.model is set by model, not by the request option',
    );
    expect(() => new AgentCore({ request: { max_tokens: 10 } })).toThrow(
      'request.max_tokens is set by maxTokens',
    );
    expect(
      () =>
        new AgentCore({
          maxTokens: 2_000,
          request: { thinking: { type: 'enabled', budget_tokens: 4_000 } },
        }),
    ).toThrow(
      'request.thinking.budget_tokens must be a whole number of at least 1024 and below maxTokens (2000); got 4000',
    );
    expect(() => new AgentCore({ request: { metadata: { at: new Date() } } })).toThrow(
      /^request\.metadata\.at is .*: the request option must be plain JSON$/,
    );
    expect(() => new AgentCore({ request: { betas: ['a,b'] } })).toThrow(
      'request.betas must be an array of beta names such as [\'context-1m-2025-08-07\']; got ["a,b"]',
    );
    expect(() => new AgentCore({ promptCache: 'always' as never })).toThrow(
      "promptCache must be one of auto, off; got 'always'",
    );
    expect(() => new AgentCore({ system: [{ type: 'text', text: '' }] })).toThrow(
      /^system\[0\] must be a text block/,
    );
  });

  it('cannot override the chart’s own fields, even in a request built by hand', () => {
    const params = toMessageCreateParams({
      model: 'claude-sonnet-5-5',
      maxTokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      fields: { model: 'other', max_tokens: 1, stream: false, metadata: { user_id: 'u' } },
      promptCache: 'off',
    });
    expect(params).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      metadata: { user_id: 'u' },
    });
  });

  it('is copied: changing the caller’s object afterwards changes no request', () => {
    const request = { metadata: { user_id: 'before' } };
    const core = new AgentCore({ request });
    request.metadata.user_id = 'after';
    const [send] = core.handleEvent({
      type: 'UserInput',
      message: { role: 'user', content: 'hi' },
    });
    expect(send).toMatchObject({ request: { fields: { metadata: { user_id: 'before' } } } });
  });
});
