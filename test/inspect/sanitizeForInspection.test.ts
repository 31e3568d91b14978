import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { agentMachine } from '../../src/index.js';
import { REDACTED, sanitizeForInspection } from '../../src/inspect/index.js';
import { cutString, resolveSanitizeOptions } from '../../src/inspect/sanitizeForInspection.js';

describe('sanitizeForInspection', () => {
  it('redacts values under credential keys, but keeps token counts', () => {
    const clean = sanitizeForInspection({
      apiKey: 'sk-live',
      headers: { Authorization: 'Bearer abc', 'x-api-key': 'k', cookie: 'c=1' },
      nested: [{ client_secret: { value: 1 } }],
      usage: { input_tokens: 12, output_tokens: 3 },
      maxTokens: 4096,
    });
    expect(clean).toEqual({
      apiKey: REDACTED,
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED, cookie: REDACTED },
      nested: [{ client_secret: REDACTED }],
      usage: { input_tokens: 12, output_tokens: 3 },
      maxTokens: 4096,
    });
  });

  it('redacts credentials recognisable by their form inside any string', () => {
    const command =
      'ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijkl npm test && echo ghp_' + 'a'.repeat(36);
    expect(sanitizeForInspection({ command })).toEqual({
      command: `ANTHROPIC_API_KEY=${REDACTED} npm test && echo ${REDACTED}`,
    });
  });

  it('cuts long strings to the limit with a marker, and cutting again changes nothing', () => {
    const once = sanitizeForInspection('x'.repeat(10_000), { maxStringLength: 100 });
    expect(typeof once).toBe('string');
    expect((once as string).length).toBeLessThanOrEqual(100);
    expect(once).toMatch(/^x+… \[cut 9,9\d\d chars\]$/);
    expect(sanitizeForInspection(once, { maxStringLength: 100 })).toBe(once);
    expect(cutString('a'.repeat(100), 50)).toBe(`${'a'.repeat(34)}… [cut 66 chars]`);
  });

  it('never splits a surrogate pair', () => {
    const cut = cutString('😀'.repeat(100), 50);
    expect(cut.length).toBeLessThanOrEqual(50);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('replaces binary blobs by their size', () => {
    expect(
      sanitizeForInspection({
        buffer: Buffer.alloc(2048),
        bytes: new Uint8Array(3),
        raw: new ArrayBuffer(5),
      }),
    ).toEqual({
      buffer: '[binary 2,048 bytes]',
      bytes: '[binary 3 bytes]',
      raw: '[binary 5 bytes]',
    });
  });

  it('breaks cycles, but not shared references', () => {
    const shared = { n: 1 };
    const loop: Record<string, unknown> = { a: shared, b: shared };
    loop.self = loop;
    expect(sanitizeForInspection(loop)).toEqual({ a: { n: 1 }, b: { n: 1 }, self: '[circular]' });
  });

  it('stops at the depth limit', () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    expect(sanitizeForInspection(deep, { maxDepth: 2 })).toEqual({ a: { b: '[depth limit]' } });
  });

  it('keeps the newest items of a long array', () => {
    const items = Array.from({ length: 10 }, (_, index) => index);
    expect(sanitizeForInspection(items, { maxArrayLength: 3 })).toEqual([
      '[… 7 earlier items]',
      7,
      8,
      9,
    ]);
  });

  it('follows JSON for the rest: toJSON, dates, errors, maps, sets, bigint, functions', () => {
    const actor = createActor(agentMachine, { input: {} });
    expect(
      sanitizeForInspection({
        actor,
        date: new Date(0),
        error: new TypeError('boom'),
        map: new Map([['k', 1]]),
        set: new Set([2]),
        big: 10n,
        fn: () => 1,
        missing: undefined,
        nan: Number.NaN,
      }),
    ).toEqual({
      actor: { xstate$$type: 1, id: actor.id },
      date: '1970-01-01T00:00:00.000Z',
      error: { name: 'TypeError', message: 'boom' },
      map: [['k', 1]],
      set: [2],
      big: '10n',
      nan: null,
    });
  });

  it('refuses unusable limits with a message that says the fix', () => {
    expect(() => resolveSanitizeOptions({ maxDepth: 0 })).toThrow(/maxDepth must be a positive/);
    expect(() => resolveSanitizeOptions({ redactValues: /sk-/ })).toThrow(/with the g flag/);
  });
});
