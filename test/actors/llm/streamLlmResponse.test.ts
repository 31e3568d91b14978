import { describe, expect, it } from 'vitest';
import type { LlmStreamDelta } from '../../../src/machine/events.js';
import { streamLlmResponse } from '../../../src/actors/llm/streamLlmResponse.js';
import type { ContentBlock, LlmRequest } from '../../../src/machine/messages.js';
import {
  encodeSseEvent,
  httpError,
  recordedStream,
  replyEvents,
  reply,
} from '../../../src/testing/index.js';
import { failureOf, fixture, fixtureEvents, request, responseOf, serve } from './harness.js';

function collect(): {
  events: LlmStreamDelta[];
  onEvent: (event: LlmStreamDelta) => void;
} {
  const events: LlmStreamDelta[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

function textOf(events: LlmStreamDelta[]): string {
  return events.map((event) => (event.type === 'LlmTextDelta' ? event.content : '')).join('');
}

describe('streamLlmResponse', () => {
  it('returns a text reply as the assistant message and forwards each text delta as it arrives', async () => {
    const { client } = await serve([reply('Hello there, how are you today?')]);
    const { events, onEvent } = collect();

    const result = await streamLlmResponse({ client, request, onEvent });

    const { usage, ...response } = responseOf(result);
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Hello there, how are you today?' }],
      },
      stopReason: 'end_turn',
      id: 'msg_test_0',
      model: request.model,
    });
    expect(usage?.input_tokens).toBeGreaterThan(0);
    expect(usage?.output_tokens).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(3);
    expect(events.every((event) => event.type === 'LlmTextDelta')).toBe(true);
    expect(textOf(events)).toBe('Hello there, how are you today?');
  });

  it('parses two tool calls whose inputs arrive as many JSON fragments', async () => {
    const readInput = { path: 'src/index.ts', range: { from: 1, to: 40 } };
    const bashInput = { command: 'ls -la "my dir"', timeoutMs: 5000 };
    const { client } = await serve([
      reply(
        [
          { type: 'text', text: 'Let me look.' },
          {
            type: 'tool_use',
            id: 'toolu_read',
            name: 'read_file',
            input: readInput,
          },
          {
            type: 'tool_use',
            id: 'toolu_bash',
            name: 'bash',
            input: bashInput,
          },
        ],
        { jsonChunkSize: 3 },
      ),
    ]);
    const { events, onEvent } = collect();

    const result = await streamLlmResponse({ client, request, onEvent });

    const { usage, ...response } = responseOf(result);
    expect(usage).toBeDefined();
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          {
            type: 'tool_use',
            id: 'toolu_read',
            name: 'read_file',
            input: readInput,
          },
          {
            type: 'tool_use',
            id: 'toolu_bash',
            name: 'bash',
            input: bashInput,
          },
        ],
      },
      stopReason: 'tool_use',
      id: 'msg_test_0',
      model: request.model,
    });
    const fragmentsOf = (callId: string) =>
      events.flatMap((event) =>
        event.type === 'LlmToolCallDelta' && event.callId === callId ? [event] : [],
      );
    const read = fragmentsOf('toolu_read');
    const bash = fragmentsOf('toolu_bash');
    expect(read.length).toBeGreaterThan(5);
    expect(read.every((event) => event.toolName === 'read_file')).toBe(true);
    expect(read.map((event) => event.argumentsFragment).join('')).toBe(JSON.stringify(readInput));
    expect(bash.every((event) => event.toolName === 'bash')).toBe(true);
    expect(bash.map((event) => event.argumentsFragment).join('')).toBe(JSON.stringify(bashInput));
  });

  it('announces a tool call with an empty fragment as soon as its block starts', async () => {
    const { client } = await serve([
      reply([
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'list_files',
          input: { path: '.' },
        },
      ]),
    ]);
    const { events, onEvent } = collect();

    await streamLlmResponse({ client, request, onEvent });

    expect(events[0]).toEqual({
      type: 'LlmToolCallDelta',
      callId: 'toolu_1',
      toolName: 'list_files',
      argumentsFragment: '',
    });
    expect(
      events
        .slice(1)
        .every((event) => event.type === 'LlmToolCallDelta' && event.argumentsFragment !== ''),
    ).toBe(true);
  });

  it('sends the request in the Messages API shape, with stream: true', async () => {
    const { client, server } = await serve([reply('ok')]);
    const full: LlmRequest = {
      model: 'claude-opus-4-1',
      maxTokens: 2048,
      system: 'You are a careful coding agent.',
      messages: [
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_1',
              name: 'read_file',
              input: { path: 'a.txt' },
            },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello' }],
        },
      ],
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          input_schema: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
        },
      ],
    };

    await streamLlmResponse({ client, request: full });

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toEqual({
      model: 'claude-opus-4-1',
      max_tokens: 2048,
      system: [
        {
          type: 'text',
          text: 'You are a careful coding agent.',
          cache_control: { type: 'ephemeral' },
        },
      ],
      messages: full.messages,
      tools: full.tools,
      stream: true,
      cache_control: { type: 'ephemeral' },
    });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
    expect(server.requests[0]?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('makes a single attempt even when the client was built with SDK retries on', async () => {
    const { server } = await serve([
      {
        kind: 'http_error',
        status: 529,
        errorType: 'overloaded_error',
        message: 'Overloaded',
      },
      reply('second attempt'),
    ]);
    const Anthropic = (await import('@anthropic-ai/sdk')).default;
    const retrying = new Anthropic({
      baseURL: server.baseURL,
      apiKey: 'test',
      maxRetries: 3,
    });

    const result = await streamLlmResponse({ client: retrying, request });

    expect(result.ok).toBe(false);
    expect(server.turnsServed).toBe(1);
  });

  describe('with recorded API streams', () => {
    it('reduces a plain text reply with a ping in it', async () => {
      const { client } = await serve([recordedStream(await fixture('basic_response.sse'))]);
      const { events, onEvent } = collect();

      const result = await streamLlmResponse({ client, request, onEvent });

      expect(result).toEqual({
        ok: true,
        response: {
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: 'Hello there!' }],
          },
          stopReason: 'end_turn',
          usage: { input_tokens: 11, output_tokens: 6 },
          id: 'msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK',
          model: 'claude-opus-4-8',
        },
      });
      expect(events.map((event) => event.type === 'LlmTextDelta' && event.content)).toEqual([
        'Hello',
        ' there',
        '!',
      ]);
    });

    it('parses a recorded tool call whose input arrives in fragments', async () => {
      const { client } = await serve([recordedStream(await fixture('tool_use_response.sse'))]);

      const result = await streamLlmResponse({ client, request });

      expect(result.ok && result.response.message.content).toEqual([
        {
          type: 'text',
          text: "I'll check the current weather in Paris for you.",
        },
        {
          type: 'tool_use',
          id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
          name: 'get_weather',
          input: { location: 'Paris' },
        },
      ]);
      expect(result.ok && result.response.stopReason).toBe('tool_use');
    });

    it("keeps a thinking block's signature unchanged", async () => {
      const sse = await fixture('stream-a-refusal.sse');
      const recorded = fixtureEvents(sse).map((event) => event.delta as Record<string, string>);
      const signature = recorded.find((delta) => delta?.type === 'signature_delta')?.signature;
      const thinking = recorded
        .filter((delta) => delta?.type === 'thinking_delta')
        .map((delta) => delta.thinking)
        .join('');
      expect(signature).toMatch(/^c3ludGhl/);
      const { client } = await serve([recordedStream(sse)]);

      const result = await streamLlmResponse({ client, request });

      expect(result.ok && result.response.message.content).toEqual([
        { type: 'thinking', thinking, signature },
        { type: 'text', text: 'Hi' },
      ]);
    });

    it('reports the refusal stop reason', async () => {
      const { client } = await serve([recordedStream(await fixture('stream-a-refusal.sse'))]);

      const result = await streamLlmResponse({ client, request });

      expect(result.ok && result.response.stopReason).toBe('refusal');
    });

    it('sends a thinking block back to the API exactly as it was received', async () => {
      const { client, server } = await serve([
        recordedStream(await fixture('stream-a-refusal.sse')),
        reply('ok'),
      ]);
      const first = await streamLlmResponse({ client, request });
      if (!first.ok) throw new Error(first.error.message);
      const followUp: LlmRequest = {
        ...request,
        messages: [...request.messages, first.response.message, { role: 'user', content: 'go on' }],
      };

      await streamLlmResponse({ client, request: followUp });

      const sent = server.requests[1]?.body.messages[1]?.content;
      expect(sent).toEqual(first.response.message.content);
      expect(JSON.stringify(sent)).toContain(
        'c3ludGhldGljLXNpZ25hdHVyZS1maXh0dXJlLWEtbm90LWEtcmVhbC1zaWduYXR1cmU=',
      );
    });

    it('keeps server-side tool blocks as they came and forwards no tool call for them', async () => {
      const sse = await fixture('stream-a-toolrefusal.sse');
      const recordedResult = fixtureEvents(sse)
        .map((event) => event.content_block as Record<string, unknown> | undefined)
        .find((block) => block?.type === 'web_search_tool_result');
      expect(recordedResult).toBeDefined();
      const { client } = await serve([recordedStream(sse)]);
      const { events, onEvent } = collect();

      const result = await streamLlmResponse({ client, request, onEvent });

      const content = result.ok ? result.response.message.content : [];
      expect((content as ContentBlock[]).map((block) => block.type)).toEqual([
        'server_tool_use',
        'web_search_tool_result',
        'text',
      ]);
      expect((content as ContentBlock[])[0]).toEqual({
        type: 'server_tool_use',
        id: 'srvtoolu_fixture_a_0001',
        name: 'web_search',
        input: { query: 'solar eclipse viewing safety news 2026' },
      });
      expect((content as ContentBlock[])[1]).toEqual(recordedResult);
      expect(events.some((event) => event.type === 'LlmToolCallDelta')).toBe(false);
      expect(result.ok && result.response.stopReason).toBe('refusal');
    });

    it('reduces a long text reply', async () => {
      const sse = await fixture('stream-b-fallback.sse');
      const expected = fixtureEvents(sse)
        .map((event) => (event.delta as { text?: string } | undefined)?.text ?? '')
        .join('');
      const { client } = await serve([recordedStream(sse)]);

      const result = await streamLlmResponse({ client, request });

      expect(result.ok && result.response.message.content).toEqual([
        { type: 'text', text: expected },
      ]);
      expect(expected.length).toBeGreaterThan(1000);
    });

    it('reports a tool input cut off by max_tokens in toolInputErrors instead of crashing', async () => {
      const { client } = await serve([
        recordedStream(await fixture('incomplete_partial_json_response.sse')),
      ]);

      const result = await streamLlmResponse({ client, request });

      const response = responseOf(result);
      expect(response.stopReason).toBe('max_tokens');
      expect(response.message.content).toEqual([
        {
          type: 'text',
          text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
        },
        {
          type: 'tool_use',
          id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
          name: 'make_file',
          input: {},
        },
      ]);
      expect(Object.keys(response.toolInputErrors ?? {})).toEqual([
        'toolu_01EKqbqmZrGRXy18eN7m9kvY',
      ]);
      expect(response.toolInputErrors?.toolu_01EKqbqmZrGRXy18eN7m9kvY).toMatch(
        /^the input JSON for tool make_file was cut off \(stop_reason max_tokens\) and does not parse: .+/,
      );
    });
  });

  describe('when the API answers with an HTTP error', () => {
    it('classifies 429 as rate_limit and honours retry-after in seconds', async () => {
      const { client } = await serve([
        {
          kind: 'http_error',
          status: 429,
          errorType: 'rate_limit_error',
          message: 'Number of requests has exceeded your rate limit',
          headers: { 'retry-after': '2' },
        },
      ]);

      const result = await streamLlmResponse({ client, request });

      const { aborted, error } = failureOf(result);
      const { message, ...classified } = error;
      expect(aborted).toBe(false);
      expect(classified).toEqual({ kind: 'rate_limit', status: 429, retryAfterMs: 2000 });
      expect(message).toContain('Number of requests has exceeded your rate limit');
    });

    it('ignores a retry-after too large to be a number of milliseconds', async () => {
      const { client } = await serve([
        httpError(429, 'rate_limit_error', 'slow down', { 'retry-after': '9'.repeat(400) }),
      ]);

      const result = await streamLlmResponse({ client, request });

      const { error } = failureOf(result);
      expect(error.kind).toBe('rate_limit');
      expect(error).not.toHaveProperty('retryAfterMs');
    });

    it('prefers retry-after-ms to retry-after', async () => {
      const { client } = await serve([
        {
          kind: 'http_error',
          status: 429,
          errorType: 'rate_limit_error',
          message: 'slow down',
          headers: { 'retry-after': '30', 'retry-after-ms': '1500' },
        },
      ]);

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.retryAfterMs).toBe(1500);
    });

    it('reads a retry-after given as an HTTP date', async () => {
      const at = new Date(Date.now() + 10_000).toUTCString();
      const { client } = await serve([
        {
          kind: 'http_error',
          status: 429,
          errorType: 'rate_limit_error',
          message: 'slow down',
          headers: { 'retry-after': at },
        },
      ]);

      const result = await streamLlmResponse({ client, request });

      const wait = !result.ok ? result.error.retryAfterMs : undefined;
      expect(wait).toBeGreaterThan(7000);
      expect(wait).toBeLessThanOrEqual(10_000);
    });

    it.each([
      [529, 'overloaded_error', 'overloaded'],
      [500, 'api_error', 'server'],
      [503, 'api_error', 'server'],
      [401, 'authentication_error', 'auth'],
      [403, 'permission_error', 'auth'],
      [400, 'invalid_request_error', 'invalid_request'],
      [404, 'not_found_error', 'invalid_request'],
      [413, 'request_too_large', 'invalid_request'],
    ] as const)('classifies HTTP %i (%s) as %s', async (status, errorType, kind) => {
      const message = `scripted ${errorType}`;
      const { client } = await serve([{ kind: 'http_error', status, errorType, message }]);

      const result = await streamLlmResponse({ client, request });

      const { aborted, error } = failureOf(result);
      expect(aborted).toBe(false);
      expect({ kind: error.kind, status: error.status }).toEqual({ kind, status });
      expect(error.message).toContain(message);
      expect(error.retryAfterMs).toBeUndefined();
    });

    it('reports a script that ran out as a server error naming the problem', async () => {
      const { client } = await serve([]);

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.kind).toBe('server');
      expect(!result.ok && result.error.message).toContain('the script ran out');
    });
  });

  describe('when the stream breaks', () => {
    it('reports a connection dropped mid-stream as a network error after forwarding what arrived', async () => {
      const { client } = await serve([
        reply('one two three four five six', {
          eventDelayMs: 5,
          cut: { afterEvents: 5, by: 'destroy_connection' },
        }),
      ]);
      const { events, onEvent } = collect();

      const result = await streamLlmResponse({ client, request, onEvent });

      const { aborted, error } = failureOf(result);
      expect(aborted).toBe(false);
      expect(error.kind).toBe('network');
      // Each transport names the cut in its own words: undici's fetch, or node:http.
      expect(error.message).toMatch(
        /^(terminated|the connection closed before the response ended)\b/,
      );
      // message_start, content_block_start, ping, then two text deltas made it through.
      expect(textOf(events)).toBe('one two ');
    });

    it('reports a response that ends without message_stop as a network error', async () => {
      const { client } = await serve([
        reply('Hello there', { cut: { afterEvents: 6, by: 'end_response' } }),
      ]);

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.kind).toBe('network');
      expect(!result.ok && result.error.message).toContain('before message_stop');
    });

    it('classifies an overloaded_error event mid-stream as overloaded', async () => {
      const { client } = await serve([
        reply('Hello there', {
          cut: {
            afterEvents: 4,
            by: 'error_event',
            errorType: 'overloaded_error',
            message: 'Overloaded',
          },
        }),
      ]);

      const result = await streamLlmResponse({ client, request });

      const { aborted, error } = failureOf(result);
      expect(aborted).toBe(false);
      expect(error.kind).toBe('overloaded');
      expect(error.status).toBeUndefined();
      expect(error.message).toContain('"message":"Overloaded"');
    });

    it('classifies an api_error event mid-stream as a server error', async () => {
      const { client } = await serve([
        reply('Hello', {
          cut: {
            afterEvents: 2,
            by: 'error_event',
            errorType: 'api_error',
            message: 'boom',
          },
        }),
      ]);

      const result = await streamLlmResponse({ client, request });

      const { error } = failureOf(result);
      expect(error.kind).toBe('server');
      expect(error.message).toContain('boom');
    });

    it('reports a stream that breaks the protocol as a server error', async () => {
      const sse = [
        'event: message_start',
        'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}',
        '',
        'event: content_block_delta',
        'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"orphan"}}',
        '',
        'event: message_stop',
        'data: {"type":"message_stop"}',
        '',
        '',
      ].join('\n');
      const { client } = await serve([recordedStream(sse)]);

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.kind).toBe('server');
      expect(!result.ok && result.error.message).toContain('block 0, which was never started');
    });

    it('reports a response holding a number too large for a double as a server error, so no Infinity reaches the context', async () => {
      const turn = reply([{ type: 'tool_use', name: 'count', input: { n: 1 } }], {
        jsonChunkSize: 100,
      });
      const events = replyEvents(turn, { turnIndex: 0, model: 'm', inputTokens: 1 });
      // JSON allows 1e999; it parses as Infinity.
      const sse = events.map(encodeSseEvent).join('').replace('{\\"n\\":1}', '{\\"n\\":1e999}');
      expect(sse).toContain('1e999');
      const { client } = await serve([recordedStream(sse)]);

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error).toEqual({
        kind: 'server',
        message:
          'the response cannot be recorded: LlmCompleted: response.message.content[0].input.n is Infinity, which JSON cannot hold',
      });
    });

    it('reports a refused connection as a network error', async () => {
      const { client, server } = await serve([]);
      await server.close();

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.kind).toBe('network');
      expect(!result.ok && result.error.message).toMatch(/Connection error/);
    });

    it("reports the client's own request timeout as a timeout", async () => {
      const { client } = await serve([reply('late', { responseDelayMs: 2000 })], { timeout: 100 });

      const result = await streamLlmResponse({ client, request });

      expect(!result.ok && result.error.kind).toBe('timeout');
    });

    it('gives up on a stream that stays silent longer than idleTimeoutMs', async () => {
      const { client } = await serve([reply('slow words here', { eventDelayMs: 10_000 })]);
      const started = Date.now();

      const result = await streamLlmResponse({
        client,
        request,
        idleTimeoutMs: 150,
      });

      expect(!result.ok && result.error.kind).toBe('timeout');
      expect(!result.ok && result.error.message).toContain('150 ms');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('turns a throwing onEvent listener into an error result', async () => {
      const { client } = await serve([reply('Hello there')]);

      const result = await streamLlmResponse({
        client,
        request,
        onEvent: () => {
          throw new Error('listener broke');
        },
      });

      expect(!result.ok && result.error).toEqual({
        kind: 'unknown',
        message: 'the onEvent listener threw: listener broke',
      });
    });
  });

  describe('when aborted', () => {
    it('resolves promptly mid-stream with aborted: true and forwards nothing after the abort', async () => {
      const { client } = await serve([reply('a b c d e f g h i j k l', { eventDelayMs: 500 })]);
      const controller = new AbortController();
      const events: LlmStreamDelta[] = [];
      let abortedAt = 0;

      const result = await streamLlmResponse({
        client,
        request,
        signal: controller.signal,
        onEvent: (event) => {
          events.push(event);
          abortedAt = Date.now();
          controller.abort();
        },
      });

      expect(Date.now() - abortedAt).toBeLessThan(1_500);
      const { aborted, error } = failureOf(result);
      expect(aborted).toBe(true);
      expect(error.kind).toBe('unknown');
      expect(error.message).toContain('aborted');
      expect(events).toEqual([{ type: 'LlmTextDelta', content: 'a b ' }]);
    });

    it('resolves at once without a request when the signal is already aborted', async () => {
      const { client, server } = await serve([reply('never')]);

      const result = await streamLlmResponse({
        client,
        request,
        signal: AbortSignal.abort(),
      });

      expect(!result.ok && result.aborted).toBe(true);
      expect(server.requests).toHaveLength(0);
    });

    it('resolves promptly when aborted while waiting for the response headers', async () => {
      const { client } = await serve([reply('late', { responseDelayMs: 30_000 })]);
      const started = Date.now();

      const result = await streamLlmResponse({
        client,
        request,
        signal: AbortSignal.timeout(50),
      });

      expect(!result.ok && result.aborted).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
});
