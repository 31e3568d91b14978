/**
 * The event-stream decoder against the WHATWG rules, and against a reading of the whole stream
 * at once, however its bytes are split into reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder } from '../../../src/actors/llm/eventStreamDecoder.js';
import { chunksOf, splitsArb } from './chunkSplits.js';

interface Dispatched {
  type: string | undefined;
  data: string;
}

function decode(chunks: readonly Uint8Array[]): Dispatched[] {
  const events: Dispatched[] = [];
  const decoder = new EventStreamDecoder((type, data) => events.push({ type, data }));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return events;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');
const decodeText = (text: string) => decode([bytes(text)]);

/**
 * The standard's interpretation written plainly over the whole text (split into lines first),
 * as a second reading to compare with: with the one addition the decoder documents, an event
 * named without data is dispatched with empty data.
 */
function reference(text: string): Dispatched[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r\n|\r|\n/);
  lines.pop(); // what follows the last line end is not a line: the stream ended in it
  const events: Dispatched[] = [];
  let type: string | undefined;
  let data: string[] | undefined;
  for (const line of lines) {
    if (line === '') {
      if (type !== undefined || data !== undefined)
        events.push({ type, data: (data ?? []).join('\n') });
      type = undefined;
      data = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    if (field === 'data') (data ??= []).push(value);
  }
  return events;
}

describe('EventStreamDecoder', () => {
  it('reads an event name and its data, and dispatches at the blank line', () => {
    expect(decodeText('event: ping\ndata: {"type":"ping"}\n\n')).toEqual([
      { type: 'ping', data: '{"type":"ping"}' },
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('takes %s line ends', (_name, end) => {
    const text = ['event: a', 'data: 1', '', 'event: b', 'data: 2', '', ''].join(end);
    expect(decodeText(text)).toEqual([
      { type: 'a', data: '1' },
      { type: 'b', data: '2' },
    ]);
  });

  it('takes line ends mixed in one stream', () => {
    expect(decodeText('event: a\r\ndata: 1\rdata: 2\n\r\n')).toEqual([{ type: 'a', data: '1\n2' }]);
  });

  it('skips one byte order mark at the start of the stream, and only there', () => {
    expect(decodeText('\uFEFFevent: a\ndata: 1\n\n')).toEqual([{ type: 'a', data: '1' }]);
    // A second one is part of the field name, which then names no field.
    expect(decodeText('\uFEFF\uFEFFevent: a\ndata: 1\n\n')).toEqual([
      { type: undefined, data: '1' },
    ]);
  });

  it('joins multi-line data with line feeds, an empty data line included', () => {
    expect(decodeText('data: {\ndata: "a":\ndata:\ndata: 1}\n\n')).toEqual([
      { type: undefined, data: '{\n"a":\n\n1}' },
    ]);
  });

  it('strips one space after the colon, not more, and reads a field without a colon as empty', () => {
    expect(decodeText('event:  two\ndata\n\n')).toEqual([{ type: ' two', data: '' }]);
  });

  it('skips comments and fields it does not know', () => {
    expect(
      decodeText(': keep-alive\nid: 7\nretry: 100\nfoo: bar\nevent: a\n:note\ndata: 1\n\n'),
    ).toEqual([{ type: 'a', data: '1' }]);
  });

  it('dispatches an event named without data, with empty data', () => {
    expect(decodeText('event: error\n\n')).toEqual([{ type: 'error', data: '' }]);
  });

  it('dispatches nothing for blank lines alone, and forgets the name once dispatched', () => {
    expect(decodeText('\n\n\r\nevent: a\ndata: 1\n\n\ndata: 2\n\n')).toEqual([
      { type: 'a', data: '1' },
      { type: undefined, data: '2' },
    ]);
  });

  it('drops an event the stream ends in the middle of', () => {
    expect(decodeText('event: a\ndata: 1\n\nevent: b\ndata: 2\n')).toEqual([
      { type: 'a', data: '1' },
    ]);
    expect(decodeText('event: a\ndata: 1\n\nevent: b\ndata: 2')).toEqual([
      { type: 'a', data: '1' },
    ]);
  });

  it('ends a line at a CR that ends the stream', () => {
    expect(decodeText('data: 1\n\r')).toEqual([{ type: undefined, data: '1' }]);
  });

  it('reads a CRLF split between two reads as one line end', () => {
    // Read as two line ends, the LF would dispatch `a` with no data.
    expect(decode([bytes('event: a\r'), bytes('\ndata: 1\r'), bytes('\n\r'), bytes('\n')])).toEqual(
      [{ type: 'a', data: '1' }],
    );
  });

  it('reads a character split between two reads whole', () => {
    const text = 'data: "grüße 🦆"\n\n';
    const encoded = bytes(text);
    const events = decode([...encoded].map((byte) => Uint8Array.of(byte)));
    expect(events).toEqual([{ type: undefined, data: '"grüße 🦆"' }]);
  });

  it('reads bytes that are not UTF-8 as replacement characters, as a TextDecoder does', () => {
    const encoded = Buffer.concat([bytes('data: a'), Uint8Array.of(0xff, 0xc3), bytes('\n\n')]);
    expect(decode([encoded])).toEqual([
      { type: undefined, data: new TextDecoder().decode(encoded.subarray(6, 9)) },
    ]);
  });

  it('lets what the listener throws leave push', () => {
    const decoder = new EventStreamDecoder(() => {
      throw new Error('stop');
    });
    expect(() => decoder.push(bytes('data: 1\n\n'))).toThrow('stop');
  });
});

describe('EventStreamDecoder over any split of the bytes', () => {
  const line = fc.oneof(
    fc.constantFrom(
      'event: a',
      'event: error',
      'event:',
      'data',
      'data:',
      'id: 1',
      'retry: 5',
      ': c',
      '',
    ),
    fc
      .string({ unit: 'grapheme', maxLength: 8 })
      .map((value) => `data: ${value.replace(/[\r\n]/g, '')}`),
    fc
      .string({ unit: 'grapheme', maxLength: 8 })
      .map((value) => `event: ${value.replace(/[\r\n]/g, '')}`),
  );
  const streamArb = fc
    .tuple(
      fc.boolean(),
      fc.array(fc.tuple(line, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 24 }),
    )
    .map(
      ([bom, lines]) => `${bom ? '\uFEFF' : ''}${lines.map(([text, end]) => text + end).join('')}`,
    );

  it('dispatches what the standard reads from the whole stream, whatever the reads', () => {
    fc.assert(
      fc.property(
        streamArb.chain((text) => fc.tuple(fc.constant(text), splitsArb(bytes(text).length))),
        ([text, splits]) => {
          expect(decode(chunksOf(bytes(text), splits))).toEqual(reference(text));
        },
      ),
      { numRuns: 500 },
    );
  });
});
