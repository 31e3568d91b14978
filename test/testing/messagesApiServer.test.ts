import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  internalServerError,
  overloaded,
  rateLimited,
  recordedStream,
  reply,
  startMessagesApiServer,
  unauthorized,
} from '../../src/testing/index.js';
import { deltas, parseSse, post, serversClosedAfterEach, streamingBody } from './serverHarness.js';

const start = serversClosedAfterEach();
const body = streamingBody;

describe('startMessagesApiServer', () => {
  it('listens on 127.0.0.1 on a free port', async () => {
    const server = await start({ script: [] });

    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseURL).not.toMatch(/:0$/);
  });

  it('streams a text reply with the headers and event order of the Messages API', async () => {
    const server = await start({ script: [reply('Hello there, world')] });

    const response = await post(server);
    const events = parseSse(await response.text());

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    expect(
      deltas(events, 0)
        .map((d) => d.text)
        .join(''),
    ).toBe('Hello there, world');
    expect(events.at(-2)?.data).toMatchObject({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null },
      // 18 characters at about four per token.
      usage: { output_tokens: 5 },
    });
    const message = events[0]?.data.message as Record<string, unknown>;
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test-model',
      content: [],
    });
  });

  it('frames every event as "event: X\\ndata: {json}\\n\\n"', async () => {
    const server = await start({ script: [reply('Hi')] });

    const text = await (await post(server)).text();

    expect(text).toMatch(/^(event: [a-z_]+\ndata: \{[^\n]*\}\n\n)+$/);
  });

  it('splits tool input JSON into several input_json_delta fragments and stops with tool_use', async () => {
    const input = { path: 'src/index.ts', lines: [1, 2, 3] };
    const server = await start({
      script: [reply([{ type: 'tool_use', id: 'toolu_x', name: 'read_file', input }])],
    });

    const events = parseSse(await (await post(server)).text());

    expect(events[1]?.data.content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_x',
      name: 'read_file',
      input: {},
    });
    const fragments = deltas(events, 0);
    expect(fragments.length).toBeGreaterThan(3);
    expect(fragments.every((d) => d.type === 'input_json_delta')).toBe(true);
    expect(JSON.parse(fragments.map((d) => d.partial_json).join(''))).toEqual(input);
    expect((events.at(-2)?.data.delta as Record<string, unknown>).stop_reason).toBe('tool_use');
  });

  it('streams thinking as thinking deltas followed by one signature delta', async () => {
    const server = await start({
      script: [
        reply([
          {
            type: 'thinking',
            thinking: 'Let me think about it.',
            signature: 'c2ln+/==',
          },
        ]),
      ],
    });

    const events = parseSse(await (await post(server)).text());

    const blockDeltas = deltas(events, 0);
    expect(blockDeltas.at(-1)).toEqual({
      type: 'signature_delta',
      signature: 'c2ln+/==',
    });
    expect(blockDeltas.slice(0, -1).every((d) => d.type === 'thinking_delta')).toBe(true);
    expect(
      blockDeltas
        .slice(0, -1)
        .map((d) => d.thinking)
        .join(''),
    ).toBe('Let me think about it.');
  });

  it('honours an explicit stop reason', async () => {
    const server = await start({
      script: [reply('cut', { stopReason: 'max_tokens' })],
    });

    const events = parseSse(await (await post(server)).text());

    expect((events.at(-2)?.data.delta as Record<string, unknown>).stop_reason).toBe('max_tokens');
  });

  it('replays a recorded stream byte for byte', async () => {
    const path = fileURLToPath(
      new URL('../fixtures/anthropic-sse/stream-a-refusal.sse', import.meta.url),
    );
    const sse = await readFile(path, 'utf8');
    const server = await start({
      script: [recordedStream(sse, { eventDelayMs: 1 })],
    });

    const text = await (await post(server)).text();

    expect(text).toBe(sse);
  });

  it('answers a 429 with retry-after and the API error body', async () => {
    const server = await start({
      script: [rateLimited({ retryAfterSeconds: 7 })],
    });

    const response = await post(server);

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Number of requests has exceeded your rate limit',
      },
      request_id: response.headers.get('request-id'),
    });
  });

  it.each([
    [overloaded(), 529, 'overloaded_error'],
    [internalServerError(), 500, 'api_error'],
    [unauthorized(), 401, 'authentication_error'],
  ] as const)('answers scripted HTTP errors in the API shape (%#)', async (turn, status, type) => {
    const server = await start({ script: [turn] });

    const response = await post(server);

    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe(type);
    expect(server.problems).toEqual([]);
  });

  it('destroys the connection after the given number of events', async () => {
    const server = await start({
      script: [
        reply('Hello there', {
          cut: { afterEvents: 3, by: 'destroy_connection' },
        }),
      ],
    });

    const response = await post(server);

    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('ends the response early, without message_stop', async () => {
    const server = await start({
      script: [reply('Hello there', { cut: { afterEvents: 4, by: 'end_response' } })],
    });

    const events = parseSse(await (await post(server)).text());

    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
    ]);
  });

  it('sends an error event mid-stream in the API shape', async () => {
    const server = await start({
      script: [
        reply('Hello there', {
          cut: {
            afterEvents: 2,
            by: 'error_event',
            errorType: 'overloaded_error',
          },
        }),
      ],
    });

    const response = await post(server);
    const events = parseSse(await response.text());

    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'error']);
    // Exactly the documented event: the request id travels in the header only.
    expect(events[2]?.data).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(response.headers.get('request-id')).toMatch(/^req_/);
  });

  it('waits between events when asked to', async () => {
    const server = await start({
      script: [reply('abcdefgh')],
      eventDelayMs: 40,
    });
    const started = Date.now();

    await (await post(server)).text();

    // 7 events, 6 pauses.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('records every request body and counts turns', async () => {
    const server = await start({ script: [reply('one'), reply('two')] });

    await (
      await post(server, {
        ...body,
        messages: [{ role: 'user', content: 'first' }],
      })
    ).text();
    await (
      await post(server, {
        ...body,
        system: 'be brief',
        messages: [{ role: 'user', content: 'second' }],
      })
    ).text();

    expect(server.turnsServed).toBe(2);
    expect(server.requests.map((r) => r.turnIndex)).toEqual([0, 1]);
    expect(server.requests[0]?.body.messages).toEqual([{ role: 'user', content: 'first' }]);
    expect(server.requests[1]?.body).toEqual({
      ...body,
      system: 'be brief',
      messages: [{ role: 'user', content: 'second' }],
    });
    expect(server.requests[1]?.headers['x-api-key']).toBe('test');
  });

  it('answers with the function form from the conversation and the turn index', async () => {
    const server = await start({
      script: (request, turnIndex) => {
        const last = request.messages.at(-1);
        return reply(
          `turn ${turnIndex} heard ${typeof last?.content === 'string' ? last.content : '?'}`,
        );
      },
    });

    const first = parseSse(
      await (
        await post(server, {
          ...body,
          messages: [{ role: 'user', content: 'ping' }],
        })
      ).text(),
    );
    const second = parseSse(
      await (
        await post(server, {
          ...body,
          messages: [{ role: 'user', content: 'pong' }],
        })
      ).text(),
    );

    expect(
      deltas(first, 0)
        .map((d) => d.text)
        .join(''),
    ).toBe('turn 0 heard ping');
    expect(
      deltas(second, 0)
        .map((d) => d.text)
        .join(''),
    ).toBe('turn 1 heard pong');
  });

  it('answers 500 naming the problem when the script runs out', async () => {
    const server = await start({ script: [reply('only one')] });
    await (await post(server)).text();

    const response = await post(server);

    expect(response.status).toBe(500);
    const answer = (await response.json()) as {
      error: { type: string; message: string };
    };
    expect(answer.error.type).toBe('api_error');
    expect(answer.error.message).toContain('the script ran out: it has 1 turn(s)');
    expect(server.problems).toEqual([expect.stringContaining('the script ran out')]);
    expect(server.turnsServed).toBe(1);
  });

  it('answers 500 naming the problem when the script function throws', async () => {
    const server = await start({
      script: () => {
        throw new Error('no idea what to say');
      },
    });

    const response = await post(server);

    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'the script function threw for turn index 0: no idea what to say',
    );
  });

  it('refuses malformed requests with a 400 naming the field', async () => {
    const server = await start({ script: [reply('unused')] });

    const notJson = await post(server, '{oops');
    const noMessages = await post(server, {
      model: 'm',
      max_tokens: 1,
      stream: true,
    });

    expect(notJson.status).toBe(400);
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as { error: { message: string } }).error.message).toMatch(
      /^messages: /,
    );
    expect(server.problems).toHaveLength(2);
    expect(server.requests).toHaveLength(0);
  });

  it('answers 404 for other routes', async () => {
    const server = await start({ script: [] });

    const response = await post(server, body, { path: '/v1/complete' });

    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe(
      'not_found_error',
    );
  });

  it('keeps idle connections open for keepAliveTimeoutMs, and says so in Keep-Alive', async () => {
    const lasting = await start({ script: [reply('Hi')], keepAliveTimeoutMs: 120_000 });
    const usual = await start({ script: [reply('Hi')] });

    const [long, short] = await Promise.all([post(lasting), post(usual)]);
    await Promise.all([long.text(), short.text()]);

    expect(long.headers.get('keep-alive')).toBe('timeout=120');
    expect(short.headers.get('keep-alive')).toBe('timeout=5');
  });

  it('closes promptly while a slow stream is still in flight', async () => {
    const server = await startMessagesApiServer({
      script: [reply('slow', { eventDelayMs: 10_000 })],
    });
    const response = await post(server);
    const reading = response.text().catch((error: unknown) => error);
    const started = Date.now();

    await server.close();
    await server.close();

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await reading).toBeInstanceOf(Error);
  });
});
