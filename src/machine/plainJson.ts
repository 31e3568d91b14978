/**
 * The boundary between what callers hand the chart and what the chart keeps. A snapshot must be
 * plain JSON that survives `JSON.parse(JSON.stringify(snapshot))` unchanged, so whatever enters
 * the context is first copied into plain data here: values JSON cannot hold are refused with the
 * path to them, and what is kept is a fresh copy, so no getter, proxy or later mutation of the
 * caller's object can reach the chart.
 */

/**
 * A value copied as plain JSON data, or why it could not be.
 *
 * @example
 * const copied: PlainJsonCopy = { ok: false, problem: 'progress.bytes is a BigInt (1024n)' };
 */
export type PlainJsonCopy = { ok: true; value: unknown } | { ok: false; problem: string };

/** Deeper than this is refused rather than risking the stack. */
const MAX_DEPTH = 256;

/** Keys and values quoted in a problem are cut to this many characters. */
const QUOTE_LIMIT = 60;

/**
 * A copy of `value` made only of `null`, booleans, strings, finite numbers, arrays and plain
 * objects, or the first thing in it that is none of those, by its path. Properties holding
 * `undefined` are left out, as `JSON.stringify` leaves them out; `-0` becomes `0`, which is what
 * a JSON round trip gives. Refused: BigInts, symbols, functions, `undefined` in an array (and
 * holes), `NaN` and infinities, class instances (`Date`, `Map`, `Set`, typed arrays, errors, …),
 * cycles, nesting deeper than 256 levels, and anything that throws while it is read (a getter,
 * a proxy trap). A key named `__proto__` is copied as the ordinary property JSON makes of it.
 * Never throws.
 *
 * @example
 * copyPlainJson({ a: [1, 'x'], b: undefined }, 'progress'); // { ok: true, value: { a: [1, 'x'] } }
 * copyPlainJson({ bytes: 1024n }, 'progress'); // { ok: false, problem: 'progress.bytes is a BigInt (1024n)' }
 */
export function copyPlainJson(value: unknown, name: string): PlainJsonCopy {
  const walk: Walk = { name, keys: [], ancestors: [], problem: '' };
  const copy = copyValue(value, walk);
  return copy === REFUSED ? { ok: false, problem: walk.problem } : { ok: true, value: copy };
}

/**
 * A finite number, zero or more: a count, a duration, a price.
 *
 * @example
 * isNonNegativeNumber(0.5); // true
 */
export function isNonNegativeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * `text` cut to a length fit for a message (a huge string or key must not make a huge one).
 *
 * @example
 * clip('x'.repeat(1000)); // 'xxx…x… (1000 characters)'
 */
export function clip(text: string, limit = QUOTE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}

/** Marks a refused copy; the reason is left in the walk's `problem`. */
const REFUSED: unique symbol = Symbol('refused');

/**
 * Where a copy is: the keys and indexes leading to the current value (its path is spelled out
 * only when something is refused, since most copies refuse nothing) and the objects above it.
 */
interface Walk {
  name: string;
  keys: Array<string | number>;
  ancestors: object[];
  problem: string;
}

function refuse(walk: Walk, why: string): typeof REFUSED {
  let path = walk.name;
  for (const key of walk.keys) path += typeof key === 'number' ? `[${key}]` : `.${clip(key, 40)}`;
  walk.problem = `${clip(path, 120)} ${why}`;
  return REFUSED;
}

function copyValue(value: unknown, walk: Walk): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) return refuse(walk, `is ${value}, which JSON cannot hold`);
      return value === 0 ? 0 : value;
    case 'bigint':
      return refuse(walk, `is a BigInt (${clip(value.toString())}n)`);
    case 'undefined':
      return refuse(walk, 'is undefined');
    case 'symbol':
    case 'function':
      return refuse(walk, `is a ${typeof value}`);
  }
  if (value === null) return null;
  const object = value as object;
  const { ancestors } = walk;
  if (ancestors.length >= MAX_DEPTH) return refuse(walk, `nests deeper than ${MAX_DEPTH} levels`);
  if (ancestors.includes(object)) return refuse(walk, 'refers back to itself (a cycle)');
  ancestors.push(object);
  const depth = walk.keys.length;
  try {
    return Array.isArray(object) ? copyArray(object, walk) : copyObject(object, walk);
  } catch (error) {
    // A proxy trap or a getter threw while the value was read.
    walk.keys.length = depth;
    return refuse(walk, `could not be read: ${describeThrown(error)}`);
  } finally {
    ancestors.pop();
  }
}

function copyArray(array: readonly unknown[], walk: Walk): unknown {
  const copy: unknown[] = [];
  const length = array.length;
  for (let index = 0; index < length; index++) {
    walk.keys.push(index);
    const item = copyValue(array[index], walk);
    if (item === REFUSED) return REFUSED;
    walk.keys.pop();
    copy.push(item);
  }
  return copy;
}

function copyObject(object: object, walk: Walk): unknown {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    return refuse(walk, `is ${kindOf(prototype)}, not a plain object`);
  }
  const copy: Record<string, unknown> = {};
  const record = object as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    walk.keys.push(key);
    let member: unknown;
    try {
      member = record[key];
    } catch (error) {
      return refuse(walk, `could not be read: ${describeThrown(error)}`);
    }
    if (member !== undefined) {
      const item = copyValue(member, walk);
      if (item === REFUSED) return REFUSED;
      if (key === '__proto__') {
        // Assigning would set the copy's prototype; JSON.parse makes it an ordinary property.
        Object.defineProperty(copy, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        copy[key] = item;
      }
    }
    walk.keys.pop();
  }
  return copy;
}

/** 'a Date', 'a Map', 'an instance of Foo', read without trusting the object. */
function kindOf(prototype: unknown): string {
  let name: unknown;
  try {
    const constructor = (prototype as { constructor?: { name?: unknown; prototype?: unknown } })
      .constructor;
    // An inherited `constructor` (an object made with a prototype of its own) names nothing.
    name =
      constructor !== undefined && constructor.prototype === prototype
        ? constructor.name
        : undefined;
  } catch {
    name = undefined;
  }
  if (typeof name !== 'string' || name === '') return 'an object with a prototype of its own';
  return /^[AEIOU]/.test(name) ? `an ${clip(name, 40)}` : `a ${clip(name, 40)}`;
}

function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return clip(String(error.message) || error.name);
    return typeof error === 'string' ? clip(error) : `a thrown ${typeof error}`;
  } catch {
    return 'a value that could not be described';
  }
}
