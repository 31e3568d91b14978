/**
 * Every kind of scripted turn, answered to the official SDK both ways: `messages.stream(…)
 * .finalMessage()` rebuilds the Message from the events, `messages.create(…)` gets it whole, and
 * the two must agree. Each form talks to a server of its own, so both are turn 0 with the same
 * ids.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  httpError,
  internalServerError,
  overloaded,
  rateLimited,
  recordedStream,
  reply,
  type ScriptedTurn,
  unauthorized,
} from '../../src/testing/index.js';
import { sdkClient, serversClosedAfterEach } from './serverHarness.js';

const start = serversClosedAfterEach();

const request = {
  model: 'claude-test-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'What does a.txt say?' }],
};

function fixture(name: string): Promise<string> {
  return readFile(
    fileURLToPath(new URL(`../fixtures/anthropic-sse/${name}`, import.meta.url)),
    'utf8',
  );
}

/** Both answers to `turn`: settled, so a failure is a value to compare. */
async function bothWays(turn: ScriptedTurn) {
  const streamingServer = await start({ script: [turn] });
  const wholeServer = await start({ script: [turn] });
  const [streamed, whole] = await Promise.allSettled([
    sdkClient(streamingServer).messages.stream(request).finalMessage(),
    sdkClient(wholeServer).messages.create(request),
  ]);
  expect(streamingServer.requests[0]?.body.stream).toBe(true);
  expect(wholeServer.requests[0]?.body.stream).toBeUndefined();
  return { streamed, whole, problems: [...streamingServer.problems, ...wholeServer.problems] };
}

/** The Message as JSON carries it: no SDK-only properties, no undefined fields. */
function asJson(message: object): unknown {
  return JSON.parse(JSON.stringify({ ...message, parsed_output: undefined }));
}

function rejection(result: PromiseSettledResult<unknown>): unknown {
  if (result.status === 'fulfilled') throw new Error('expected the request to fail');
  return result.reason;
}

describe('the local Messages API server driven by the official SDK', () => {
  const successes: [string, () => ScriptedTurn | Promise<ScriptedTurn>, Record<string, unknown>][] =
    [
      [
        'a text reply',
        () => reply('The file says hello.'),
        { content: [{ type: 'text', text: 'The file says hello.' }], stop_reason: 'end_turn' },
      ],
      [
        'text and two tool calls',
        () =>
          reply([
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', name: 'read_file', input: { path: 'a.txt', lines: [1, 2] } },
            { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.txt' } },
          ]),
        {
          content: [
            { type: 'text', text: 'Reading both.' },
            {
              type: 'tool_use',
              id: 'toolu_test_0_1',
              name: 'read_file',
              input: { path: 'a.txt', lines: [1, 2] },
            },
            { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.txt' } },
          ],
          stop_reason: 'tool_use',
        },
      ],
      [
        'thinking, then text',
        () =>
          reply([
            { type: 'thinking', thinking: 'The user wants the file.', signature: 'c2ln+/==' },
            { type: 'text', text: 'Here it is.' },
          ]),
        {
          content: [
            { type: 'thinking', thinking: 'The user wants the file.', signature: 'c2ln+/==' },
            { type: 'text', text: 'Here it is.' },
          ],
          usage: expect.objectContaining({ output_tokens_details: { thinking_tokens: 6 } }),
        },
      ],
      [
        'redacted thinking',
        () => reply([{ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' }]),
        { content: [{ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' }] },
      ],
      ['an empty reply', () => reply([]), { content: [], stop_reason: 'end_turn' }],
      [
        'an explicit stop reason and usage',
        () =>
          reply('cut sho', {
            stopReason: 'max_tokens',
            usage: { input_tokens: 321, output_tokens: 7, cache_read_input_tokens: 100 },
          }),
        {
          stop_reason: 'max_tokens',
          usage: expect.objectContaining({
            input_tokens: 321,
            output_tokens: 7,
            cache_read_input_tokens: 100,
          }),
        },
      ],
      [
        'a paced, delayed reply',
        () => reply('slowly', { responseDelayMs: 20, eventDelayMs: 5, textChunkSize: 1 }),
        { content: [{ type: 'text', text: 'slowly' }] },
      ],
      ...['basic_response', 'tool_use_response', 'stream-a-refusal', 'stream-a-toolrefusal'].map(
        (name): [string, () => Promise<ScriptedTurn>, Record<string, unknown>] => [
          `the recorded stream ${name}.sse`,
          async () => recordedStream(await fixture(`${name}.sse`), { eventDelayMs: 1 }),
          {},
        ],
      ),
      [
        'the recorded stream stream-b-fallback.sse',
        async () => recordedStream(await fixture('stream-b-fallback.sse')),
        { stop_reason: 'end_turn' },
      ],
    ];

  it.each(successes)(
    '%s: finalMessage() of the stream equals the non-streaming Message',
    async (_kind, turn, expected) => {
      const { streamed, whole, problems } = await bothWays(await turn());

      expect(streamed.status).toBe('fulfilled');
      expect(whole.status).toBe('fulfilled');
      if (streamed.status !== 'fulfilled' || whole.status !== 'fulfilled') return;
      expect(asJson(whole.value)).toEqual(asJson(streamed.value));
      expect(whole.value).toMatchObject(expected);
      expect(whole.value.usage.input_tokens).toBeGreaterThan(0);
      expect(whole.value.usage.output_tokens).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    },
  );

  it.each([
    ['a 429 with retry-after', rateLimited({ retryAfterSeconds: 3 }), 429, 'rate_limit_error'],
    ['a 529', overloaded(), 529, 'overloaded_error'],
    ['a 500', internalServerError(), 500, 'api_error'],
    ['a 401', unauthorized(), 401, 'authentication_error'],
    [
      'any HTTP error',
      httpError(400, 'invalid_request_error', 'bad'),
      400,
      'invalid_request_error',
    ],
  ] as const)('%s: both forms fail with the same APIError', async (_kind, turn, status, type) => {
    const { streamed, whole, problems } = await bothWays(turn);

    for (const error of [rejection(streamed), rejection(whole)]) {
      expect(error).toBeInstanceOf(Anthropic.APIError);
      const apiError = error as InstanceType<typeof Anthropic.APIError>;
      expect(apiError.status).toBe(status);
      expect(apiError.error).toMatchObject({ type: 'error', error: { type } });
      expect(apiError.requestID).toMatch(/^req_/);
    }
    expect(problems).toEqual([]);
  });

  it('an error event mid-stream: the stream fails with the documented event, the whole request with the HTTP error', async () => {
    const { streamed, whole } = await bothWays(
      reply('Hello there', { cut: { afterEvents: 3, by: 'error_event' } }),
    );

    const fromStream = rejection(streamed) as InstanceType<typeof Anthropic.APIError>;
    const fromWhole = rejection(whole) as InstanceType<typeof Anthropic.APIError>;
    expect(fromStream).toBeInstanceOf(Anthropic.APIError);
    expect(fromStream.error).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(fromWhole).toBeInstanceOf(Anthropic.InternalServerError);
    expect(fromWhole.status).toBe(529);
    expect(fromWhole.error).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: fromWhole.requestID,
    });
  });

  it('a dropped connection: both forms fail with a connection error', async () => {
    const { streamed, whole } = await bothWays(
      reply('Hello there', { cut: { afterEvents: 3, by: 'destroy_connection' } }),
    );

    const fromStream = rejection(streamed);
    expect(fromStream).toBeInstanceOf(Anthropic.AnthropicError);
    expect(fromStream).not.toBeInstanceOf(Anthropic.APIError);
    expect(rejection(whole)).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('a response ended early: neither form yields a Message', async () => {
    const { streamed, whole } = await bothWays(
      reply('Hello there', { cut: { afterEvents: 4, by: 'end_response' } }),
    );

    expect(rejection(streamed)).toBeInstanceOf(Anthropic.AnthropicError);
    expect(rejection(whole)).toBeInstanceOf(SyntaxError);
  });
});
