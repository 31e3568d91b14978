/**
 * Answering with one JSON body, as the API does for non-streaming requests and for errors, and
 * breaking such an answer off the way a scripted cut asks.
 */

import type { ServerResponse } from 'node:http';
import { type ApiErrorType, apiErrorBody, apiErrorStatus } from './apiErrorBody.js';
import { cutError, type StreamCut } from './scriptedTurn.js';

/**
 * Sends `body` as `application/json` with `status` and `headers`, unless the response is already
 * gone.
 *
 * @example
 * sendJson(res, 200, message, { 'request-id': 'req_test_000001' });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Sends an HTTP error in the API's shape: the JSON error body with `request_id`, and the
 * `request-id` header.
 *
 * @example
 * sendJsonError(res, 529, 'overloaded_error', 'Overloaded', 'req_test_000001');
 */
export function sendJsonError(
  res: ServerResponse,
  status: number,
  errorType: ApiErrorType,
  message: string,
  requestId: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, status, apiErrorBody(errorType, message, requestId), {
    ...headers,
    'request-id': requestId,
  });
}

/**
 * Breaks off a non-streaming answer whose stream would have been cut: the connection is
 * destroyed before anything is sent (`destroy_connection`); the status line and half the body
 * arrive, then the response ends (`end_response`), so the body does not parse; or the request
 * fails with the cut's error as an HTTP error of the status the API gives that error type
 * (`error_event`), which is what a non-streaming request sees when generation fails.
 *
 * @example
 * breakOffJson(res, { afterEvents: 3, by: 'error_event' }, JSON.stringify(message), 'req_test_000001', {});
 */
export function breakOffJson(
  res: ServerResponse,
  cut: StreamCut,
  body: string,
  requestId: string,
  headers: Readonly<Record<string, string>>,
): void {
  switch (cut.by) {
    case 'destroy_connection':
      res.destroy();
      return;
    case 'end_response':
      if (res.destroyed || res.headersSent) return;
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      res.end(body.slice(0, Math.floor(body.length / 2)));
      return;
    case 'error_event': {
      const { errorType, message } = cutError(cut);
      sendJsonError(res, apiErrorStatus(errorType), errorType, message, requestId, headers);
      return;
    }
  }
}
