/**
 * Context diffs for the inspector. A field the chart did not change keeps its reference, streamed
 * text grows by `+`, and an appended message makes a new array that keeps every earlier item; so
 * a diff is a few comparisons per field, whatever the conversation's length.
 */
import type { ContextPatch } from './inspectorProtocol.js';
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
    if (old === value) continue;
    if (typeof value !== 'number' && limits.redactKeys.test(key)) {
      // Checked here too: appended pieces are sanitised without their key.
      (patch.set ??= {})[key] = REDACTED;
    } else if (Array.isArray(old) && Array.isArray(value) && extendsArray(old, value)) {
      (patch.append ??= {})[key] = value
        .slice(old.length)
        .map((item: unknown) => sanitizeWith(item, limits));
    } else if (typeof old === 'string' && typeof value === 'string' && extendsString(old, value)) {
      (patch.extend ??= {})[key] = cutString(value.slice(old.length), limits.maxStringLength);
    } else {
      (patch.set ??= {})[key] = sanitizeWith(value, limits);
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
 * Whether `next` is `previous` with items appended. Comparing the ends by reference is enough
 * for arrays that only grow, and costs O(1); anything else is sent whole, which is always
 * correct.
 */
function extendsArray(previous: readonly unknown[], next: readonly unknown[]): boolean {
  if (next.length <= previous.length) return false;
  if (previous.length === 0) return true;
  const last = previous.length - 1;
  return previous[0] === next[0] && previous[last] === next[last];
}

function extendsString(previous: string, next: string): boolean {
  return next.length > previous.length && next.startsWith(previous);
}
