/**
 * The agent's transcript is one append-only array shared by successive contexts; each context's
 * `messageCount` says how much of it is its own. A context recorded earlier sees the array as it
 * is now, so whatever reads a kept context cuts the array to that context's own length.
 */

/**
 * How many items of `array` (held in `record[key]`) belong to `record`: `messageCount` for an
 * agent context's `messages`, the whole array for anything else.
 *
 * @example
 * ownLength({ messages: log, messageCount: 3 }, 'messages', log); // 3, however long log is now
 */
export function ownLength(
  record: Readonly<Record<string, unknown>>,
  key: string,
  array: readonly unknown[],
): number {
  const length = key === 'messages' ? record.messageCount : undefined;
  return typeof length === 'number' && length >= 0 && length <= array.length
    ? length
    : array.length;
}

/**
 * A field's value as `record` owns it: a shared array cut to the record's own length (copied
 * only when it has grown since), anything else as it is.
 *
 * @example
 * ownPart({ messages: log, messageCount: 3 }, 'messages', log).length; // 3
 */
export function ownPart(
  record: Readonly<Record<string, unknown>>,
  key: string,
  value: unknown,
): unknown {
  if (!Array.isArray(value)) return value;
  const length = ownLength(record, key, value);
  return length < value.length ? value.slice(0, length) : value;
}
