/**
 * Context diffs for the inspector. A field the chart did not change keeps its reference, streamed
 * text grows by `+`, and the transcript is one append-only array shared by successive contexts,
 * each with its own `messageCount`; so a diff is a few comparisons per field, whatever the
 * conversation's length.
 */
import type { ContextPatch } from './inspectorProtocol.js';
import { ownLength, ownPart } from './sharedLogs.js';
import {
  cutString,
  type JsonValue,
  REDACTED,
  type SanitizeOptions,
  sanitizeWith,
} from './sanitizeForInspection.js';

/**
 * The patch that turns `previous` into `next` (both raw contexts), with every value sanitised.
 * Returns `undefined` when nothing changed.
 *
 * @example
 * const patch = diffContext(before.context, after.context, resolveSanitizeOptions());
 * // { extend: { streamingText: 'llo' } } after a text delta
 */
export function diffContext(
  previous: unknown,
  next: unknown,
  limits: Required<SanitizeOptions>,
): ContextPatch | undefined {
  if (previous === next) return undefined;
  const before = isRecord(previous) ? previous : {};
  const after = isRecord(next) ? next : {};
  const patch: ContextPatch = {};
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    const arrays = Array.isArray(old) && Array.isArray(value);
    // A shared array keeps its identity as it grows: for arrays, the own lengths tell.
    const oldLength = arrays ? ownLength(before, key, old) : 0;
    const newLength = arrays ? ownLength(after, key, value) : 0;
    if (old === value && oldLength === newLength) continue;
    if (typeof value !== 'number' && limits.redactKeys.test(key)) {
      // Checked here too: appended pieces are sanitised without their key.
      (patch.set ??= {})[key] = REDACTED;
    } else if (arrays && extendsArray(old, oldLength, value, newLength)) {
      (patch.append ??= {})[key] = value
        .slice(oldLength, newLength)
        .map((item: unknown) => sanitizeWith(item, limits));
    } else if (typeof old === 'string' && typeof value === 'string' && extendsString(old, value)) {
      (patch.extend ??= {})[key] = cutString(value.slice(old.length), limits.maxStringLength);
    } else {
      (patch.set ??= {})[key] = sanitizeWith(ownPart(after, key, value), limits);
    }
  }
  for (const key of Object.keys(before)) {
    if (!(key in after)) (patch.set ??= {})[key] = null;
  }
  return patch.set || patch.append || patch.extend ? patch : undefined;
}

/**
 * Applies `patch` to a sanitised `context`, returning a new object (fields that did not change
 * are shared, so keeping one context per step costs little).
 *
 * @example
 * let context: Record<string, JsonValue> = {};
 * for (const step of steps) context = applyContextPatch(context, step.patch);
 */
export function applyContextPatch(
  context: Record<string, JsonValue>,
  patch: ContextPatch | undefined,
): Record<string, JsonValue> {
  if (patch === undefined) return context;
  const next = { ...context };
  for (const [key, value] of Object.entries(patch.set ?? {})) next[key] = value;
  for (const [key, items] of Object.entries(patch.append ?? {})) {
    const current = next[key];
    next[key] = (Array.isArray(current) ? current : []).concat(items);
  }
  for (const [key, text] of Object.entries(patch.extend ?? {})) {
    const current = next[key];
    next[key] = (typeof current === 'string' ? current : '') + text;
  }
  return next;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether the first `nextLength` items of `next` are the first `previousLength` of `previous`
 * with items appended. Comparing the ends by reference is enough for arrays that only grow, and
 * costs O(1); anything else is sent whole, which is always correct.
 */
function extendsArray(
  previous: readonly unknown[],
  previousLength: number,
  next: readonly unknown[],
  nextLength: number,
): boolean {
  if (nextLength <= previousLength) return false;
  if (previousLength === 0) return true;
  return previous[0] === next[0] && previous[previousLength - 1] === next[previousLength - 1];
}

function extendsString(previous: string, next: string): boolean {
  return next.length > previous.length && next.startsWith(previous);
}
