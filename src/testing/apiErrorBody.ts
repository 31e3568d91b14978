/**
 * The JSON error body of the Messages API, used for HTTP errors and for `error` events inside a
 * stream alike.
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
 * when something goes wrong.
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
 * Builds an error body in the API's shape.
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
