/**
 * Turning whatever a model call threw into an {@link LlmError} the chart can reason about: which
 * kind of failure it was, whether to wait, and the error's own words.
 */

import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type { LlmError, LlmErrorKind } from '../../machine/index.js';
import { type HeaderReader, retryAfterMs } from './retryAfter.js';

/** Node and undici codes of a transport that timed out. */
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Node and undici codes of a connection that failed or dropped. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_ABORTED',
]);

/**
 * What the SDK throws, before sending anything, when no credential is configured (no API key,
 * no auth token, no profile): no retry can supply one.
 */
const MISSING_CREDENTIALS = /^Could not resolve authentication method\b/;

/**
 * Classifies a failed model call.
 *
 * - By HTTP status first: 429 → `rate_limit`, 529 → `overloaded`, other 5xx → `server`,
 *   408 → `timeout`, 401/403 → `auth` (and 402: a billing problem no retry can fix),
 *   400/404/413/422/431 → `invalid_request`.
 * - Without a status (an `error` event in the middle of a stream) by the API's error type:
 *   `overloaded_error` → `overloaded`, `rate_limit_error` → `rate_limit`, `api_error` → `server`, …
 * - SDK connection errors and dropped or refused sockets → `network`; SDK and socket timeouts →
 *   `timeout`; the SDK's refusal to send without a credential (no `ANTHROPIC_API_KEY`) → `auth`.
 *   Everything else → `unknown`.
 *
 * `retryAfterMs` comes from `retry-after-ms` or `retry-after` (seconds or an HTTP date) whenever
 * the response carried one, whatever the status. `message` is the error's own message, with the
 * messages of its causes appended (a connection error's real reason is in its cause).
 *
 * Works on errors of any copy of the SDK: it reads `status`, `headers` and `type` rather than
 * relying on `instanceof` alone.
 *
 * @example
 * try {
 *   await client.messages.create({ ...params, stream: true });
 * } catch (error) {
 *   const failure = classifyLlmError(error);
 *   // { kind: 'rate_limit', status: 429, retryAfterMs: 2000, message: '429 {"type":"error",…}' }
 * }
 */
export function classifyLlmError(error: unknown): LlmError {
  const message = describeError(error);
  const chain = causeChain(error);
  if (
    error instanceof APIConnectionTimeoutError ||
    chain.some((link) => link.name === 'TimeoutError' || TIMEOUT_CODES.has(link.code ?? ''))
  ) {
    return { kind: 'timeout', message };
  }
  if (error instanceof APIUserAbortError || chain[0]?.name === 'AbortError') {
    return { kind: 'unknown', message };
  }
  if (error instanceof APIConnectionError || chain.some(isTransportFailure)) {
    return { kind: 'network', message };
  }
  if (MISSING_CREDENTIALS.test(chain[0]?.message ?? '')) return { kind: 'auth', message };
  const status = readStatus(error);
  const kind =
    (status === undefined ? undefined : kindForStatus(status)) ??
    kindForErrorType(readErrorType(error)) ??
    'unknown';
  const result: LlmError = { kind, message };
  if (status !== undefined) result.status = status;
  const headers = readHeaders(error);
  const wait = headers === undefined ? undefined : retryAfterMs(headers);
  if (wait !== undefined) result.retryAfterMs = wait;
  return result;
}

function kindForStatus(status: number): LlmErrorKind | undefined {
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if ([400, 404, 413, 422, 431].includes(status)) return 'invalid_request';
  return undefined;
}

function kindForErrorType(type: string | undefined): LlmErrorKind | undefined {
  switch (type) {
    case 'rate_limit_error':
      return 'rate_limit';
    case 'overloaded_error':
      return 'overloaded';
    case 'api_error':
      return 'server';
    case 'timeout_error':
      return 'timeout';
    case 'authentication_error':
    case 'permission_error':
    case 'billing_error':
      return 'auth';
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return 'invalid_request';
    default:
      return undefined;
  }
}

interface ChainLink {
  name: string | undefined;
  code: string | undefined;
  message: string | undefined;
}

/** The error and its `cause`s, outermost first (bounded, in case a cause refers back). */
function causeChain(error: unknown): ChainLink[] {
  const links: ChainLink[] = [];
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && links.length < 8) {
    links.push({
      name: stringField(current, 'name'),
      code: stringField(current, 'code'),
      message: stringField(current, 'message'),
    });
    current = 'cause' in current ? current.cause : undefined;
  }
  return links;
}

/** undici reports a body cut mid-way as `TypeError: terminated` and a failed connect as `fetch failed`. */
function isTransportFailure(link: ChainLink): boolean {
  if (NETWORK_CODES.has(link.code ?? '')) return true;
  return (
    link.name === 'TypeError' && (link.message === 'terminated' || link.message === 'fetch failed')
  );
}

function describeError(error: unknown): string {
  if (typeof error === 'string') return error;
  const chain = causeChain(error);
  const first = chain[0];
  if (first === undefined) return String(error);
  const own = first.message ?? safeStringify(error);
  const causes = chain
    .slice(1)
    .map((link) => link.message)
    .filter((text): text is string => text !== undefined && text !== '' && !own.includes(text));
  return causes.length === 0 ? own : `${own} (cause: ${causes.join('; ')})`;
}

function readStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

function readHeaders(error: unknown): HeaderReader | undefined {
  if (typeof error !== 'object' || error === null || !('headers' in error)) return undefined;
  const { headers } = error;
  if (typeof headers !== 'object' || headers === null || !('get' in headers)) return undefined;
  const { get } = headers;
  if (typeof get !== 'function') return undefined;
  return {
    get: (name) => {
      const value: unknown = get.call(headers, name);
      return typeof value === 'string' ? value : null;
    },
  };
}

/** The SDK puts the API's `error.type` on `type`; a raw body has it at `error.error.type`. */
function readErrorType(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const direct = stringField(error, 'type');
  if (direct !== undefined) return direct;
  const body = 'error' in error ? error.error : undefined;
  const inner =
    typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  return typeof inner === 'object' && inner !== null ? stringField(inner, 'type') : undefined;
}

function stringField(value: object, field: string): string | undefined {
  const found: unknown = (value as Record<string, unknown>)[field];
  return typeof found === 'string' ? found : undefined;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
