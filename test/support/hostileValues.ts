/**
 * Values a caller, a tool or a stored log may hand the agent that are not plain JSON, or that
 * fight back when read: BigInts, dates, maps, cycles, getters and proxy traps that throw, revoked
 * proxies, `__proto__` keys, huge strings. Each arbitrary makes fresh objects, so a test may
 * mutate or revoke what it was given.
 */
import fc from 'fast-check';

/** A string far longer than any message a person types (1 MiB). */
export const HUGE_STRING = 'x'.repeat(1 << 20);

/** Each kind of hostile value, by name, so a test can say which one broke it. */
export const HOSTILE_VALUES: Record<string, () => unknown> = {
  bigint: () => 1024n,
  date: () => new Date(0),
  map: () => new Map([['k', 1]]),
  set: () => new Set([1]),
  nan: () => Number.NaN,
  infinity: () => Number.POSITIVE_INFINITY,
  negativeZero: () => -0,
  undefined: () => undefined,
  symbol: () => Symbol('s'),
  function: () => () => 1,
  classInstance: () =>
    new (class Point {
      x = 1;
    })(),
  errorObject: () => new Error('an error object'),
  typedArray: () => new Uint8Array([1, 2]),
  circular: () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    return value;
  },
  circularArray: () => {
    const value: unknown[] = [1];
    value.push(value);
    return value;
  },
  throwingGetter: () =>
    Object.defineProperty({ a: 1 }, 'b', {
      enumerable: true,
      get() {
        throw new Error('getter refuses');
      },
    }),
  protoKey: () => JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown,
  protoLiteral: () => ({ __proto__: { inherited: 'value' }, own: 1 }),
  nullPrototype: () => Object.assign(Object.create(null) as object, { a: 1 }),
  proxyGetThrows: () =>
    new Proxy(
      { a: 1 },
      {
        get() {
          throw new Error('get trap refuses');
        },
      },
    ),
  proxyKeysThrow: () =>
    new Proxy(
      { a: 1 },
      {
        ownKeys() {
          throw new Error('ownKeys trap refuses');
        },
      },
    ),
  proxyPrototypeThrows: () =>
    new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('getPrototypeOf trap refuses');
        },
      },
    ),
  proxyThrowsAThrowingProxy: () =>
    new Proxy(
      {},
      {
        getPrototypeOf() {
          // What is thrown is itself hostile to anything that describes it.
          throw new Proxy(
            {},
            {
              get() {
                throw new Error('again');
              },
              getPrototypeOf() {
                throw new Error('again');
              },
            },
          );
        },
      },
    ),
  revokedProxy: () => {
    const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
    revoke();
    return proxy;
  },
  transparentProxy: () => new Proxy({ a: [1, 'two'] }, {}),
  hugeString: () => HUGE_STRING,
  deepNesting: () => {
    let value: unknown = 'bottom';
    for (let level = 0; level < 10_000; level++) value = [value];
    return value;
  },
};

/**
 * One hostile value, built here rather than by an arbitrary: fast-check inspects the values its
 * arbitraries produce, and a revoked proxy or a throwing trap would break fast-check itself.
 */
export function drawHostile(g: fc.GeneratorValue, except: readonly string[] = []): unknown {
  const kinds = Object.keys(HOSTILE_VALUES).filter((kind) => !except.includes(kind));
  const kind: string = g(() => fc.constantFrom(...kinds));
  return HOSTILE_VALUES[kind]!();
}

/** Keys a record may have, the dangerous ones included. */
const keyArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'type') },
);

/** fast-check's own "anything", with every kind of value it knows switched on. */
const anythingArb: fc.Arbitrary<unknown> = fc.anything({
  key: keyArb,
  maxDepth: 3,
  maxKeys: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
});

/**
 * A value that is sometimes plain JSON and often not, hostile parts nested anywhere (but none of
 * the kinds named in `except`).
 */
export function drawPayload(g: fc.GeneratorValue, except: readonly string[] = []): unknown {
  switch (g(fc.integer, { min: 0, max: 8 })) {
    case 0:
    case 1:
    case 2:
      return g(() => fc.jsonValue({ maxDepth: 3 }));
    case 3:
    case 4:
      return g(() => anythingArb);
    case 5:
    case 6:
      return drawHostile(g, except);
    case 7: {
      const record: Record<string, unknown> = {};
      for (const key of g(() => fc.array(keyArb, { maxLength: 3 }))) {
        // defineProperty, so a `__proto__` key is an own property as JSON.parse makes it.
        Object.defineProperty(record, key, {
          value: drawHostile(g, except),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return record;
    }
    default:
      return [g(() => fc.jsonValue({ maxDepth: 1 })), drawHostile(g, except)];
  }
}
