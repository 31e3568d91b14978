import { describe, expect, it } from 'vitest';
import { reply } from '../../src/testing/index.js';
import { parseSse, post, serversClosedAfterEach } from './serverHarness.js';

const start = serversClosedAfterEach();

describe('usage in a streamed reply', () => {
  it('has every field of message_start.message.usage the API sends', async () => {
    const server = await start({ script: [reply('Hello there, world')] });

    const [messageStart] = parseSse(await (await post(server)).text());

    expect(messageStart?.data).toEqual({
      type: 'message_start',
      message: {
        id: 'msg_test_0',
        type: 'message',
        role: 'assistant',
        model: 'claude-test-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 1,
          service_tier: 'standard',
          inference_geo: 'global',
        },
      },
    });
  });

  it('has the cumulative counts in message_delta.usage', async () => {
    const server = await start({ script: [reply('Hello there, world')] });

    const events = parseSse(await (await post(server)).text());

    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        // 18 characters at about four per token.
        output_tokens: 5,
      },
    });
  });

  it('reports the counts a turn sets, cache counts included', async () => {
    const server = await start({
      script: [
        reply('x', {
          usage: {
            input_tokens: 40,
            cache_creation_input_tokens: 1200,
            cache_read_input_tokens: 3000,
            output_tokens: 9,
          },
        }),
      ],
    });

    const events = parseSse(await (await post(server)).text());

    const messageStart = events[0]?.data.message as { usage: Record<string, unknown> };
    expect(messageStart.usage).toMatchObject({
      input_tokens: 40,
      cache_creation_input_tokens: 1200,
      cache_read_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 0 },
    });
    expect(events.at(-2)?.data.usage).toEqual({
      input_tokens: 40,
      cache_creation_input_tokens: 1200,
      cache_read_input_tokens: 3000,
      output_tokens: 9,
    });
  });

  it('breaks out thinking tokens when the reply thinks', async () => {
    const server = await start({
      script: [
        reply([
          { type: 'thinking', thinking: 'a'.repeat(40), signature: 'c2ln' },
          { type: 'text', text: 'b'.repeat(20) },
        ]),
      ],
    });

    const events = parseSse(await (await post(server)).text());

    expect(events.at(-2)?.data.usage).toMatchObject({
      output_tokens: 15,
      output_tokens_details: { thinking_tokens: 10 },
    });
  });
});
