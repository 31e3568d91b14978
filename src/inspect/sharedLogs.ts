/**
 * Arrays that successive agent contexts share and only append to (the transcript), each paired
 * with the field that says how much of it belongs to one context. A snapshot recorded earlier
 * sees the array as it is now, so whatever reads a kept context cuts it to that context's own
 * length.
 */
const LENGTH_FIELDS: Readonly<Record<string, string>> = { messages: 'messageCount' };

/**
 * How many items of `array` (held in `record[key]`) belong to `record`.
 *
 * @example
 * ownLength({ messages: log, messageCount: 3 }, 'messages', log); // 3, however long log is now
 */
export function ownLength(
  record: Readonly<Record<string, unknown>>,
  key: string,
  array: readonly unknown[],
): number {
  const field = LENGTH_FIELDS[key];
  const length = field === undefined ? undefined : record[field];
  return typeof length === 'number' && length >= 0 && length <= array.length
    ? length
    : array.length;
}
