/**
 * Reading how long the API asks us to wait before trying again.
 */

/**
 * The part of `Headers` this module reads, so plain objects and the SDK's headers both fit.
 *
 * @example
 * const headers: HeaderReader = new Headers({ 'retry-after': '2' });
 */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The wait the response asks for, in whole milliseconds, or `undefined` when it asks for none
 * (or says something unreadable).
 *
 * `retry-after-ms` wins when present, because it is the more precise of the two. `retry-after`
 * is either delay-seconds (fractions accepted) or an HTTP date; a date in the past means "now"
 * (0).
 *
 * @example
 * retryAfterMs(new Headers({ 'retry-after': '2' }));          // 2000
 * retryAfterMs(new Headers({ 'retry-after-ms': '1500' }));    // 1500
 * retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }), Date.parse('Wed, 21 Oct 2026 07:27:58 GMT')); // 2000
 */
export function retryAfterMs(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const millis = parseDelay(headers.get('retry-after-ms'));
  if (millis !== undefined) return Math.ceil(millis);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = parseDelay(value);
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  // An HTTP date always names its day or month; this keeps "-3" from parsing as the year -3.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil(date - now));
}

/**
 * A non-negative decimal number and nothing else (`parseFloat` would accept "3 apples"); one too
 * large for a double is unreadable too, since `Infinity` has no JSON form.
 */
function parseDelay(value: string | null | undefined): number | undefined {
  if (value == null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  const delay = Number(value);
  return Number.isFinite(delay * 1000) ? delay : undefined;
}
