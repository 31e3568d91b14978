/**
 * The JSON error body of the Messages API: the body of an HTTP error (with the request's id) and
 * the data of an `error` event inside a stream (without one, as the API documents it).
 */

/**
 * The `error.type` values the Messages API documents. Any other string is accepted too, so a
 * script can try out error types the API may add later.
 *
 * @example
 * const type: ApiErrorType = 'overloaded_error';
 */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error'
  | (string & {});

/**
 * `{"type":"error","error":{"type":…,"message":…},"request_id":…}` — what the API answers with
 * when something goes wrong. `request_id` (the same value as the `request-id` header) is in the
 * body of HTTP errors; the `error` event of a stream has none.
 *
 * @example
 * const body: ApiErrorBody = {
 *   type: 'error',
 *   error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
 *   request_id: 'req_test_000001',
 * };
 */
export interface ApiErrorBody {
  type: 'error';
  error: { type: ApiErrorType; message: string };
  request_id?: string;
}

/**
 * Builds an error body in the API's shape: with `requestId` for an HTTP error, without it for the
 * data of a stream's `error` event.
 *
 * @example
 * JSON.stringify(apiErrorBody('overloaded_error', 'Overloaded'));
 * // '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
 */
export function apiErrorBody(
  type: ApiErrorType,
  message: string,
  requestId?: string,
): ApiErrorBody {
  const body: ApiErrorBody = { type: 'error', error: { type, message } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The HTTP status the API documents for an error type; 500 for a type it does not document.
 *
 * @example
 * apiErrorStatus('overloaded_error'); // 529
 */
export function apiErrorStatus(type: ApiErrorType): number {
  return Object.hasOwn(STATUS_BY_ERROR_TYPE, type) ? (STATUS_BY_ERROR_TYPE[type] ?? 500) : 500;
}
