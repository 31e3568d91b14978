import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { copyPlainJson } from '../../src/machine/plainJson.js';
import { HOSTILE_VALUES } from '../support/hostileValues.js';

describe('copyPlainJson', () => {
  it('copies plain JSON data into new objects the caller no longer holds', () => {
    const value = { a: [1, 'two', { b: null, c: true }], d: { e: 'f' } };
    const copied = copyPlainJson(value, 'value');
    expect(copied).toEqual({ ok: true, value });
    if (!copied.ok) return;
    expect(copied.value).not.toBe(value);
    expect((copied.value as typeof value).a).not.toBe(value.a);
  });

  it('leaves out properties holding undefined and turns -0 into 0, as a JSON round trip does', () => {
    const copied = copyPlainJson({ a: undefined, b: -0, c: [-0] }, 'value');
    expect(copied.ok).toBe(true);
    if (!copied.ok) return;
    expect(isDeepStrictEqual(copied.value, { b: 0, c: [0] })).toBe(true);
  });

  it('keeps a `__proto__` key as the ordinary property JSON.parse makes of it', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    const copied = copyPlainJson(value, 'value');
    expect(copied.ok).toBe(true);
    if (!copied.ok) return;
    expect(Object.getPrototypeOf(copied.value)).toBe(Object.prototype);
    expect(isDeepStrictEqual(JSON.parse(JSON.stringify(copied.value)), copied.value)).toBe(true);
    expect(JSON.stringify(copied.value)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('accepts objects without a prototype and copies them into ordinary ones', () => {
    const copied = copyPlainJson(HOSTILE_VALUES.nullPrototype!(), 'value');
    expect(copied.ok && Object.getPrototypeOf(copied.value)).toBe(Object.prototype);
  });

  it.each([
    ['bigint', 'progress.v is a BigInt (1024n)'],
    ['date', 'progress.v is a Date, not a plain object'],
    ['map', 'progress.v is a Map, not a plain object'],
    ['nan', 'progress.v is NaN, which JSON cannot hold'],
    ['infinity', 'progress.v is Infinity, which JSON cannot hold'],
    ['symbol', 'progress.v is a symbol'],
    ['function', 'progress.v is a function'],
    ['classInstance', 'progress.v is a Point, not a plain object'],
    ['errorObject', 'progress.v is an Error, not a plain object'],
    ['circular', 'progress.v.self refers back to itself (a cycle)'],
    ['circularArray', 'progress.v[1] refers back to itself (a cycle)'],
    ['throwingGetter', 'progress.v.b could not be read: getter refuses'],
    ['protoLiteral', 'progress.v is an object with a prototype of its own, not a plain object'],
    ['proxyGetThrows', 'progress.v.a could not be read: get trap refuses'],
    ['proxyKeysThrow', 'progress.v could not be read: ownKeys trap refuses'],
    [
      'proxyThrowsAThrowingProxy',
      'progress.v could not be read: a value that could not be described',
    ],
    ['deepNesting', 'nests deeper than 256 levels'],
  ])('refuses %s, naming where it is', (kind, problem) => {
    const copied = copyPlainJson({ v: HOSTILE_VALUES[kind]!() }, 'progress');
    expect(copied.ok).toBe(false);
    if (copied.ok) return;
    expect(copied.problem).toContain(problem);
  });

  it('refuses undefined in an array and holes, which JSON would turn into null', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(copyPlainJson([1, , 3], 'list')).toEqual({
      ok: false,
      problem: 'list[1] is undefined',
    });
    expect(copyPlainJson([undefined], 'list')).toEqual({
      ok: false,
      problem: 'list[0] is undefined',
    });
  });

  it('never throws, whatever it is given', () => {
    for (const make of Object.values(HOSTILE_VALUES)) {
      expect(() => copyPlainJson(make(), 'value')).not.toThrow();
      expect(() => copyPlainJson([{ deep: make() }], 'value')).not.toThrow();
    }
  });
});
