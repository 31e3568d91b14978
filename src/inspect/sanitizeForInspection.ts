/**
 * Turns anything an agent holds (context, events, snapshots) into plain JSON that is safe to show
 * in an inspector: credentials redacted, long strings and binary blobs cut with a marker, cycles
 * and runaway depth broken. Inspection leaves the process, so this runs on everything that does.
 */
import { AgentStatechartError } from '../machine/index.js';
/**
 * Keys whose values are withheld. Numbers are exempt: `input_tokens` and `maxTokens` are counts,
 * not credentials, and withholding them would only hide the usage figures.
 *
 * @example
 * DEFAULT_REDACT_KEYS.test('x-api-key'); // true
 */
export const DEFAULT_REDACT_KEYS = /key|token|secret|password|authori[sz]ation|cookie|credential/i;

/**
 * Credentials recognisable by their form wherever they appear in text (a tool call's JSON, a bash
 * command): Anthropic and OpenAI keys, GitHub and Slack tokens, AWS access key ids, JWTs.
 *
 * @example
 * 'export ANTHROPIC_API_KEY=sk-ant-api03-abc…'.replace(DEFAULT_REDACT_VALUES, REDACTED);
 */
export const DEFAULT_REDACT_VALUES =
  /\b(?:sk-ant-[\w-]{8,}|sk-(?:proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,})/g;

/**
 * What a redacted value becomes.
 *
 * @example
 * sanitizeForInspection({ apiKey: 'sk-…' }); // { apiKey: REDACTED }
 */
export const REDACTED = '[redacted]';

/**
 * Limits of {@link sanitizeForInspection}.
 *
 * @example
 * const options: SanitizeOptions = { maxStringLength: 500, redactKeys: /key|secret|session/i };
 */
export interface SanitizeOptions {
  /** Longer strings are cut to this many characters, marker included. Default 4,000. */
  maxStringLength?: number;
  /** Longer arrays keep their last items (the newest, in a transcript). Default 500. */
  maxArrayLength?: number;
  /** Deeper values become a marker. Default 12. */
  maxDepth?: number;
  /** Keys whose non-numeric values are replaced by `[redacted]`. Default {@link DEFAULT_REDACT_KEYS}. */
  redactKeys?: RegExp;
  /**
   * Text replaced by `[redacted]` inside any string (a global regular expression). Default
   * {@link DEFAULT_REDACT_VALUES}.
   */
  redactValues?: RegExp;
}

/**
 * A JSON value: what {@link sanitizeForInspection} returns.
 *
 * @example
 * const value: JsonValue = { state: 'CallingLlm', retries: [1, 2] };
 */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

type Limits = Required<SanitizeOptions>;

/**
 * Resolves the limits once, so a caller sanitising many values doesn't re-read the options.
 *
 * @example
 * const limits = resolveSanitizeOptions({ maxStringLength: 100 });
 */
export function resolveSanitizeOptions(options: SanitizeOptions = {}): Required<SanitizeOptions> {
  const limits = {
    maxStringLength: options.maxStringLength ?? 4_000,
    maxArrayLength: options.maxArrayLength ?? 500,
    maxDepth: options.maxDepth ?? 12,
    redactKeys: options.redactKeys ?? DEFAULT_REDACT_KEYS,
    redactValues: options.redactValues ?? DEFAULT_REDACT_VALUES,
  };
  if (!limits.redactValues.global) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'redactValues must be a global regular expression (with the g flag)',
    );
  }
  for (const name of ['maxStringLength', 'maxArrayLength', 'maxDepth'] as const) {
    const value = limits[name];
    if (!Number.isInteger(value) || value < 1) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `${name} must be a positive whole number; got ${String(value)}`,
      );
    }
  }
  // A marker needs room: cutting to fewer characters than the marker itself says nothing.
  limits.maxStringLength = Math.max(limits.maxStringLength, 40);
  return limits;
}

/**
 * Copies `value` into plain JSON for an inspector. JSON's own rules apply (`toJSON` is honoured,
 * `undefined` and functions vanish from objects), plus:
 *
 * - values under keys matching `redactKeys` become `[redacted]` (numbers excepted), and so do
 *   credentials matching `redactValues` inside any string (an API key pasted into a command);
 * - strings longer than `maxStringLength` are cut, ending in `… [cut N chars]` (cutting twice
 *   changes nothing, so an already-sanitised value passes through unchanged);
 * - `Buffer`s, typed arrays and `ArrayBuffer`s become `[binary N bytes]`;
 * - arrays longer than `maxArrayLength` keep their last items after a `[… N earlier items]` marker;
 * - `Error`s become `{ name, message }`, `Map`s and `Set`s arrays, `bigint`s strings;
 * - a value that contains itself becomes `[circular]`; deeper than `maxDepth`, `[depth limit]`.
 *
 * @example
 * sanitizeForInspection({ apiKey: 'sk-ant-…', usage: { input_tokens: 12 }, text: 'x'.repeat(9_000) });
 * // → { apiKey: '[redacted]', usage: { input_tokens: 12 }, text: 'xxxx…x… [cut 5,019 chars]' } (4,000 characters)
 */
export function sanitizeForInspection(value: unknown, options: SanitizeOptions = {}): JsonValue {
  const limits = resolveSanitizeOptions(options);
  return sanitizeWith(value, limits);
}

/**
 * {@link sanitizeForInspection} with limits resolved beforehand (the hot path of a recorder).
 *
 * @example
 * const limits = resolveSanitizeOptions();
 * const events = inspected.map((event) => sanitizeWith(event, limits));
 */
export function sanitizeWith(value: unknown, limits: Limits): JsonValue {
  return copy(value, limits, 0, new Set());
}

function copy(value: unknown, limits: Limits, depth: number, ancestors: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
      return cleanString(value, limits);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return `${value.toString()}n`;
    case 'object':
      return value === null ? null : copyObject(value, limits, depth, ancestors);
    default:
      // undefined, functions and symbols have no JSON form.
      return null;
  }
}

function copyObject(
  value: object,
  limits: Limits,
  depth: number,
  ancestors: Set<object>,
): JsonValue {
  if (ancestors.has(value)) return '[circular]';
  if (depth >= limits.maxDepth) return '[depth limit]';
  const binary = binaryLength(value);
  if (binary !== undefined) return `[binary ${binary.toLocaleString('en')} bytes]`;
  if (value instanceof Error)
    return { name: value.name, message: cutString(value.message, limits.maxStringLength) };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();

  ancestors.add(value);
  try {
    if (Array.isArray(value)) return copyArray(value, limits, depth, ancestors);
    if (value instanceof Map) return copyArray([...value.entries()], limits, depth, ancestors);
    if (value instanceof Set) return copyArray([...value.values()], limits, depth, ancestors);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      // Actor refs, snapshots and dates describe their own JSON form; the result is sanitised too.
      const own: unknown = toJSON.call(value);
      return own === value
        ? copyPlain(value, limits, depth, ancestors)
        : copy(own, limits, depth, ancestors);
    }
    return copyPlain(value, limits, depth, ancestors);
  } finally {
    // Only ancestors count: the same object reached twice through siblings is not a cycle.
    ancestors.delete(value);
  }
}

function copyArray(
  items: readonly unknown[],
  limits: Limits,
  depth: number,
  ancestors: Set<object>,
): JsonValue[] {
  const dropped = Math.max(0, items.length - limits.maxArrayLength);
  const result: JsonValue[] =
    dropped > 0 ? [`[… ${dropped.toLocaleString('en')} earlier items]`] : [];
  for (let index = dropped; index < items.length; index += 1) {
    result.push(copy(items[index], limits, depth + 1, ancestors));
  }
  return result;
}

function copyPlain(
  value: object,
  limits: Limits,
  depth: number,
  ancestors: Set<object>,
): { [key: string]: JsonValue } {
  const result: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (typeof item !== 'number' && limits.redactKeys.test(key)) {
      result[key] = REDACTED;
      continue;
    }
    result[key] = copy(item, limits, depth + 1, ancestors);
  }
  return result;
}

/** The byte length of binary data, or `undefined` for anything else. */
function binaryLength(value: object): number | undefined {
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  return undefined;
}

/**
 * A string as it may leave the process: credentials in it redacted, then cut to length.
 *
 * @example
 * cleanString('key sk-ant-api03-abcdefgh', resolveSanitizeOptions()); // 'key [redacted]'
 */
export function cleanString(text: string, limits: Required<SanitizeOptions>): string {
  const max = limits.maxStringLength;
  if (text.length <= max) return text.replace(limits.redactValues, REDACTED);
  // Only the part that survives the cut is scanned (with a margin for a key straddling it).
  const head = text.slice(0, max + 256).replace(limits.redactValues, REDACTED);
  return cutString(head, max, text.length - head.length);
}

/**
 * Cuts `text` to at most `maxLength` characters, marker included, so cutting again is a no-op.
 * `alreadyCut` counts characters removed beforehand, for the marker.
 *
 * @example
 * cutString('a'.repeat(100), 50); // 34 × 'a' + '… [cut 66 chars]' (50 characters)
 */
export function cutString(text: string, maxLength: number, alreadyCut = 0): string {
  if (text.length <= maxLength && alreadyCut === 0) return text;
  const total = text.length + alreadyCut;
  // The marker's own length depends on the count it prints; two passes settle it.
  let kept = Math.min(text.length, maxLength - marker(total).length);
  kept = Math.max(0, Math.min(text.length, maxLength - marker(total - kept).length));
  // Never split a surrogate pair: a lone half renders as garbage.
  const code = text.charCodeAt(kept - 1);
  if (code >= 0xd800 && code <= 0xdbff) kept -= 1;
  return text.slice(0, kept) + marker(total - kept);
}

function marker(cut: number): string {
  return `… [cut ${cut.toLocaleString('en')} chars]`;
}
