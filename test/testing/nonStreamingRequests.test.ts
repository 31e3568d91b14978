import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { recordedStream, reply } from '../../src/testing/index.js';
import { parseSse, post, serversClosedAfterEach, streamingBody } from './serverHarness.js';

const start = serversClosedAfterEach();
const { stream: _streaming, ...wholeBody } = streamingBody;

function fixture(name: string): Promise<string> {
  return readFile(
    fileURLToPath(new URL(`../fixtures/anthropic-sse/${name}`, import.meta.url)),
    'utf8',
  );
}

describe('a request without stream: true', () => {
  it.each([
    ['stream absent', wholeBody],
    ['stream: false', { ...wholeBody, stream: false }],
  ])('with %s gets the whole Message as JSON from the scripted turn', async (_case, payload) => {
    const server = await start({
      script: [
        reply([
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } },
        ]),
      ],
    });

    const response = await post(server, payload);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const message = (await response.json()) as { usage: Record<string, unknown> };
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message).toEqual({
      id: 'msg_test_0',
      type: 'message',
      role: 'assistant',
      model: 'claude-test-model',
      content: [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_test_0_1', name: 'read_file', input: { path: 'a.txt' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      usage: {
        input_tokens: message.usage.input_tokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: message.usage.output_tokens,
        service_tier: 'standard',
        inference_geo: 'global',
      },
    });
    expect(server.turnsServed).toBe(1);
    expect(server.problems).toEqual([]);
  });

  it('takes turns from the same script as streaming requests, in arrival order', async () => {
    const server = await start({ script: [reply('first'), reply('second')] });

    const streamed = parseSse(await (await post(server)).text());
    const whole = (await (await post(server, wholeBody)).json()) as { content: unknown };

    expect(streamed.at(-1)?.event).toBe('message_stop');
    expect(whole.content).toEqual([{ type: 'text', text: 'second' }]);
    expect(server.requests.map((r) => r.turnIndex)).toEqual([0, 1]);
  });

  it('arrives when its stream would have ended', async () => {
    const server = await start({ script: [reply('abcdefgh')], eventDelayMs: 40 });
    const started = Date.now();

    const response = await post(server, wholeBody);
    await response.json();

    // The stream has 7 events, so 6 pauses.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('gets a recorded stream folded into one Message', async () => {
    const server = await start({
      script: [recordedStream(await fixture('tool_use_response.sse'))],
    });

    const message = (await (await post(server, wholeBody)).json()) as Record<string, unknown>;

    expect(message).toMatchObject({
      id: 'msg_019Q1hrJbZG26Fb9BQhrkHEr',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: "I'll check the current weather in Paris for you." },
        { type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } },
      ],
      usage: { input_tokens: 377, output_tokens: 65 },
    });
  });

  it('gets the HTTP error a recorded stream reports in its error event', async () => {
    const sse = [
      'event: message_start',
      'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}',
      '',
      'event: error',
      'data: {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
      '',
      '',
    ].join('\n');
    const server = await start({ script: [recordedStream(sse)] });

    const response = await post(server, wholeBody);

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'Internal server error' },
      request_id: response.headers.get('request-id'),
    });
    expect(server.problems).toEqual([]);
  });

  it('gets a 500 naming the block when a recorded tool input never completes', async () => {
    const server = await start({
      script: [recordedStream(await fixture('incomplete_partial_json_response.sse'))],
    });

    const response = await post(server, wholeBody);

    expect(response.status).toBe(500);
    const answer = (await response.json()) as { error: { type: string; message: string } };
    expect(answer.error.type).toBe('api_error');
    expect(answer.error.message).toMatch(
      /^this turn cannot be answered without streaming: the tool input of content block 1 never became whole JSON/,
    );
    expect(server.problems).toEqual([expect.stringContaining('never became whole JSON')]);
  });

  it('is broken off the way its stream would be: a body cut in half for end_response', async () => {
    const server = await start({
      script: [reply('Hello there', { cut: { afterEvents: 4, by: 'end_response' } })],
    });

    const response = await post(server, wholeBody);
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(text.startsWith('{"id":"msg_test_0"')).toBe(true);
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
  });

  it('is answered whole when the cut would come after the last event', async () => {
    const server = await start({
      script: [reply('Hi', { cut: { afterEvents: 50, by: 'destroy_connection' } })],
    });

    const response = await post(server, wholeBody);

    expect(response.status).toBe(200);
    expect(((await response.json()) as { content: unknown }).content).toEqual([
      { type: 'text', text: 'Hi' },
    ]);
  });
});
