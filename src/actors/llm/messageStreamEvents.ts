/**
 * The events of a Messages API stream, from the decoded server-sent events, read as the Anthropic
 * SDK's own stream reads them.
 */

import { APIError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { EventStreamListener } from './eventStreamDecoder.js';

type ErrorType = ConstructorParameters<typeof APIError>[4];

/**
 * Makes the {@link EventStreamListener} that hands each Messages API event to `onEvent`, the
 * way the SDK's `Stream` yields them: `ping` events and events without an `event` field are
 * skipped, as is an event with no data; the `data` of the others is parsed as JSON (a
 * `SyntaxError` when it is not); an `error` event is thrown as the SDK throws it, an `APIError`
 * without a status that carries the event's body, its `error.type` and the response's headers
 * (so its `request-id` too).
 *
 * @example
 * const decoder = new EventStreamDecoder(
 *   messageStreamListener((event) => accumulator.apply(event), () => headersOf(response)),
 * );
 */
export function messageStreamListener(
  onEvent: (event: RawMessageStreamEvent) => void,
  responseHeaders: () => Headers,
): EventStreamListener {
  return (type, data) => {
    if (type === undefined || type === 'ping') return;
    if (type === 'error') throw streamErrorEvent(data, responseHeaders());
    if (data === '') return;
    onEvent(JSON.parse(data) as RawMessageStreamEvent);
  };
}

function streamErrorEvent(data: string, headers: Headers): APIError {
  const body = parsedOr(data);
  const type = errorTypeOf(body);
  return new APIError(undefined, body as object, undefined, headers, type);
}

/** The JSON value of `text`, or `text` itself when it is not JSON (or is JSON `null`). */
function parsedOr(text: string): unknown {
  return parseJson(text) ?? text;
}

/**
 * The JSON value of `text`, or `undefined` when it is not JSON.
 *
 * @example
 * parseJson('{"type":"error"}'); // { type: 'error' }
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorTypeOf(body: unknown): ErrorType | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  if (typeof error !== 'object' || error === null || !('type' in error)) return undefined;
  return error.type as ErrorType;
}
