import { describe, expect, it } from 'vitest';
import {
  chunkText,
  encodeSseEvent,
  reply,
  replyEvents,
  splitSseFrames,
} from '../../src/testing/index.js';

describe('encodeSseEvent', () => {
  it('writes one event line, one data line of JSON and a blank line', () => {
    expect(encodeSseEvent({ event: 'ping', data: { type: 'ping' } })).toBe(
      'event: ping\ndata: {"type":"ping"}\n\n',
    );
  });

  it('keeps newlines in the data inside the JSON string', () => {
    const frame = encodeSseEvent({ event: 'x', data: { text: 'a\nb' } });

    expect(frame.split('\n')).toEqual(['event: x', 'data: {"text":"a\\nb"}', '', '']);
  });
});

describe('splitSseFrames', () => {
  it('cuts a stream into frames whose concatenation is the stream', () => {
    const stream = 'event: a\ndata: {}\n\nevent: b\r\ndata: {}\r\n\r\nevent: c\ndata: {}\n\n\n';

    const frames = splitSseFrames(stream);

    expect(frames).toEqual([
      'event: a\ndata: {}\n\n',
      'event: b\r\ndata: {}\r\n\r\n',
      'event: c\ndata: {}\n\n\n',
    ]);
    expect(frames.join('')).toBe(stream);
  });

  it('keeps an unterminated last frame', () => {
    expect(splitSseFrames('event: a\ndata: {}\n\nevent: b')).toEqual([
      'event: a\ndata: {}\n\n',
      'event: b',
    ]);
  });
});

describe('chunkText', () => {
  it('never splits a surrogate pair', () => {
    expect(chunkText('a😀b😀', 2)).toEqual(['a😀', 'b😀']);
  });

  it('gives no chunk for empty text', () => {
    expect(chunkText('', 4)).toEqual([]);
  });
});

describe('replyEvents', () => {
  it('numbers blocks from 0 and names tool calls after the turn and block', () => {
    const events = replyEvents(
      reply([
        { type: 'text', text: 'x' },
        { type: 'tool_use', name: 'bash', input: {} },
      ]),
      { turnIndex: 3, model: 'm', inputTokens: 9 },
    );

    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    expect(starts).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      },
      {
        type: 'content_block_start',
        index: 1,
        content_block: {
          type: 'tool_use',
          id: 'toolu_test_3_1',
          name: 'bash',
          input: {},
        },
      },
    ]);
    expect(events[0]?.data).toMatchObject({
      message: { id: 'msg_test_3', usage: { input_tokens: 9 } },
    });
  });

  it('uses the usage a turn sets', () => {
    const events = replyEvents(reply('x', { usage: { input_tokens: 100, output_tokens: 7 } }), {
      turnIndex: 0,
      model: 'm',
      inputTokens: 1,
    });

    expect(events[0]?.data).toMatchObject({
      message: { usage: { input_tokens: 100 } },
    });
    expect(events.at(-2)?.data).toMatchObject({ usage: { output_tokens: 7 } });
  });
});
