/**
 * The header checks the Messages API makes before it reads a request: a credential, then an
 * API version.
 */

import type { ApiErrorType } from './apiErrorBody.js';

/**
 * Why a request is refused: the status and error the API answers with, and a longer explanation
 * for the server's `problems` list.
 *
 * @example
 * const refusal: RequestRefusal = {
 *   status: 400,
 *   errorType: 'invalid_request_error',
 *   message: 'anthropic-version: header is required',
 *   explanation: 'send an anthropic-version header such as 2023-06-01',
 * };
 */
export interface RequestRefusal {
  status: number;
  errorType: ApiErrorType;
  /** The message the API itself sends. */
  message: string;
  /** What `problems` says; the message when absent. */
  explanation?: string;
}

// Any date-shaped version is taken: the API adds versions over time (the SDK sends its own), and
// a list kept here would go stale.
const VERSION_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
const BEARER_TOKEN = /^bearer\s+\S/i;

/**
 * Checks a request's headers (names in lower case) the way the API does: without a non-empty
 * `x-api-key` or an `authorization: Bearer …` the answer is 401 `authentication_error`; without an
 * `anthropic-version` of the form `YYYY-MM-DD`, 400 `invalid_request_error`. Any key is accepted.
 *
 * @example
 * requestHeaderRefusal({ 'x-api-key': 'test', 'anthropic-version': '2023-06-01' }); // undefined
 * requestHeaderRefusal({ 'anthropic-version': '2023-06-01' })?.status; // 401
 */
export function requestHeaderRefusal(
  headers: Readonly<Record<string, string>>,
): RequestRefusal | undefined {
  const apiKey = headers['x-api-key']?.trim() ?? '';
  const authorization = headers.authorization?.trim() ?? '';
  if (apiKey === '' && !BEARER_TOKEN.test(authorization)) {
    return {
      status: 401,
      errorType: 'authentication_error',
      message: 'x-api-key header is required',
      explanation:
        'the request has no credential: send an x-api-key header or authorization: Bearer <token> (the SDK does when given apiKey or authToken)',
    };
  }
  const version = headers['anthropic-version']?.trim();
  if (version === undefined || version === '') {
    return {
      status: 400,
      errorType: 'invalid_request_error',
      message: 'anthropic-version: header is required',
      explanation:
        'the request has no anthropic-version header: send one such as 2023-06-01 (the SDK always does)',
    };
  }
  if (!VERSION_SHAPE.test(version)) {
    return {
      status: 400,
      errorType: 'invalid_request_error',
      message: `anthropic-version: ${JSON.stringify(version)} is not a valid version`,
      explanation: `anthropic-version ${JSON.stringify(version)} is not a date-shaped version such as 2023-06-01`,
    };
  }
  return undefined;
}
