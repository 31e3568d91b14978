/**
 * What the local Messages API server answers to one request: a reply streamed event by event, an
 * HTTP error, or a recorded stream replayed verbatim. Replies and replays can be slowed down and
 * cut short, so tests can interrupt a stream or watch it break.
 */

import type { LlmContainer, LlmStopDetails, StopReason } from '../machine/index.js';
import type { ApiErrorType } from './apiErrorBody.js';

/**
 * A content block of a scripted reply. The server streams it the way the API does: text in
 * several `text_delta`s, tool input as several `input_json_delta` fragments, thinking as
 * `thinking_delta`s followed by one `signature_delta`. A `tool_use` without an `id` gets
 * `toolu_test_<turn>_<block>`.
 *
 * @example
 * const blocks: ScriptedBlock[] = [
 *   { type: 'thinking', thinking: 'The user wants a file listing.', signature: 'c2lnbmF0dXJl' },
 *   { type: 'text', text: 'Let me look.' },
 *   { type: 'tool_use', name: 'list_files', input: { path: '.' } },
 * ];
 */
export type ScriptedBlock =
  | { type: 'text'; text: string }
  | {
      type: 'tool_use';
      name: string;
      input: Record<string, unknown>;
      id?: string;
    }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/**
 * How a stream breaks off after `afterEvents` SSE events have been sent:
 *
 * - `destroy_connection`: the TCP connection is destroyed, as when a network path fails;
 * - `end_response`: the HTTP response ends cleanly, but without the remaining events (so without
 *   `message_stop`);
 * - `error_event`: an `error` event in the API's shape is sent (by default `overloaded_error`),
 *   then the response ends — what the API does when it fails mid-stream.
 *
 * @example
 * const cut: StreamCut = { afterEvents: 4, by: 'error_event', errorType: 'overloaded_error' };
 */
export type StreamCut =
  | { afterEvents: number; by: 'destroy_connection' }
  | { afterEvents: number; by: 'end_response' }
  | {
      afterEvents: number;
      by: 'error_event';
      errorType?: ApiErrorType;
      message?: string;
    };

/**
 * Timing and breakage shared by every streamed turn.
 *
 * @example
 * const pacing: StreamPacing = { eventDelayMs: 20, cut: { afterEvents: 3, by: 'destroy_connection' } };
 */
export interface StreamPacing {
  /** Wait this long before answering at all (status line included). Default 0. */
  responseDelayMs?: number;
  /** Wait this long between SSE events. Defaults to the server's `eventDelayMs`. */
  eventDelayMs?: number;
  /** Break the stream off instead of sending it whole. */
  cut?: StreamCut;
}

/**
 * A reply the server streams as a well-formed Messages API event stream.
 *
 * @example
 * const turn: ReplyTurn = {
 *   kind: 'reply',
 *   content: [{ type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }],
 *   stopReason: 'tool_use',
 * };
 */
export interface ReplyTurn extends StreamPacing {
  kind: 'reply';
  content: ScriptedBlock[];
  /**
   * Default: `stop_sequence` when `stopSequence` is given, `tool_use` when the content holds a
   * `tool_use` block, else `end_turn`.
   */
  stopReason?: StopReason;
  /** The custom stop sequence that ended the reply (`message_delta.delta.stop_sequence`). */
  stopSequence?: string;
  /**
   * Why the model stopped, in detail (`message_delta.delta.stop_details`), such as
   * `{ type: 'refusal', category: 'cyber', explanation: null }` with `stopReason: 'refusal'`.
   */
  stopDetails?: LlmStopDetails;
  /**
   * The server-side container the reply used (`message_delta.delta.container`), as when the
   * code execution tool ran: `{ id, expires_at }`.
   */
  container?: LlmContainer;
  /**
   * Token counts to report; plausible estimates are used for input and output left out (about
   * four characters a token), and 0 for the cache counts.
   */
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  /** Code points per `text_delta` / `thinking_delta`. Default 4. */
  textChunkSize?: number;
  /** Characters per `input_json_delta` fragment. Default 6. */
  jsonChunkSize?: number;
}

/**
 * An HTTP error answer with the API's JSON error body.
 *
 * @example
 * const turn: HttpErrorTurn = {
 *   kind: 'http_error',
 *   status: 429,
 *   errorType: 'rate_limit_error',
 *   message: 'Number of requests has exceeded your rate limit',
 *   headers: { 'retry-after': '2' },
 * };
 */
export interface HttpErrorTurn {
  kind: 'http_error';
  status: number;
  errorType: ApiErrorType;
  message: string;
  /** Extra response headers, such as `retry-after`. */
  headers?: Record<string, string>;
  /** Wait this long before answering. Default 0. */
  responseDelayMs?: number;
}

/**
 * A recorded SSE stream, sent byte for byte (frame by frame, so pacing and cuts still apply).
 *
 * @example
 * const turn: RecordedStreamTurn = {
 *   kind: 'recorded_stream',
 *   sse: await readFile('fixtures/basic_response.sse', 'utf8'),
 * };
 */
export interface RecordedStreamTurn extends StreamPacing {
  kind: 'recorded_stream';
  sse: string;
}

/**
 * Everything the server can answer to one request.
 *
 * @example
 * const script: ScriptedTurn[] = [overloaded(), reply('Hello!')];
 */
export type ScriptedTurn = ReplyTurn | HttpErrorTurn | RecordedStreamTurn;

/**
 * A scripted reply. A string becomes one text block.
 *
 * @example
 * reply('Hello there!');
 * reply(
 *   [
 *     { type: 'text', text: 'Reading both files.' },
 *     { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } },
 *     { type: 'tool_use', name: 'read_file', input: { path: 'b.txt' } },
 *   ],
 *   { eventDelayMs: 10 },
 * );
 */
export function reply(
  content: string | ScriptedBlock[],
  options: Omit<ReplyTurn, 'kind' | 'content'> = {},
): ReplyTurn {
  const blocks: ScriptedBlock[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return { ...options, kind: 'reply', content: blocks };
}

/**
 * A recorded stream to replay verbatim.
 *
 * @example
 * recordedStream(await readFile('stream-a-refusal.sse', 'utf8'), { eventDelayMs: 5 });
 */
export function recordedStream(
  sse: string,
  options: Omit<RecordedStreamTurn, 'kind' | 'sse'> = {},
): RecordedStreamTurn {
  return { ...options, kind: 'recorded_stream', sse };
}

/**
 * Any HTTP error in the API's shape.
 *
 * @example
 * httpError(400, 'invalid_request_error', 'messages: roles must alternate');
 */
export function httpError(
  status: number,
  errorType: ApiErrorType,
  message: string,
  headers?: Record<string, string>,
): HttpErrorTurn {
  return headers === undefined
    ? { kind: 'http_error', status, errorType, message }
    : { kind: 'http_error', status, errorType, message, headers };
}

/**
 * HTTP 429 `rate_limit_error` with a `retry-after` header in seconds (default 1).
 *
 * @example
 * rateLimited({ retryAfterSeconds: 2 });
 */
export function rateLimited(
  options: { retryAfterSeconds?: number; message?: string } = {},
): HttpErrorTurn {
  const { retryAfterSeconds = 1, message = 'Number of requests has exceeded your rate limit' } =
    options;
  return httpError(429, 'rate_limit_error', message, {
    'retry-after': String(retryAfterSeconds),
  });
}

/**
 * HTTP 529 `overloaded_error`.
 *
 * @example
 * overloaded();
 */
export function overloaded(message = 'Overloaded'): HttpErrorTurn {
  return httpError(529, 'overloaded_error', message);
}

/**
 * HTTP 500 `api_error`.
 *
 * @example
 * internalServerError('Internal server error');
 */
export function internalServerError(message = 'Internal server error'): HttpErrorTurn {
  return httpError(500, 'api_error', message);
}

/**
 * HTTP 401 `authentication_error`.
 *
 * @example
 * unauthorized();
 */
export function unauthorized(message = 'invalid x-api-key'): HttpErrorTurn {
  return httpError(401, 'authentication_error', message);
}

/**
 * The error a cut `by: 'error_event'` reports: its own, or `overloaded_error` "Overloaded".
 *
 * @example
 * cutError({ afterEvents: 2, by: 'error_event' }); // { errorType: 'overloaded_error', message: 'Overloaded' }
 */
export function cutError(cut: Extract<StreamCut, { by: 'error_event' }>): {
  errorType: ApiErrorType;
  message: string;
} {
  return { errorType: cut.errorType ?? 'overloaded_error', message: cut.message ?? 'Overloaded' };
}
