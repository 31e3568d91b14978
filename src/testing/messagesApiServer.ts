/**
 * A local stand-in for the Anthropic Messages API: a real HTTP server that answers
 * `POST /v1/messages` from a script, streaming or not, so the real SDK (and everything built on
 * it) can be tested offline against the API's actual wire format.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiErrorStatus } from './apiErrorBody.js';
import { breakOffJson, sendJson, sendJsonError } from './jsonResponse.js';
import { flattenHeaders, parseJson, readBody } from './incomingRequest.js';
import type { FoldedStream } from './messageFromEvents.js';
import { type MessagesRequestBody, parseMessagesRequest } from './messagesRequest.js';
import { RateLimiter, type RequestCost, resolveRateLimits } from './rateLimiter.js';
import { type RequestRefusal, requestHeaderRefusal } from './requestHeaderRefusal.js';
import type { ScriptedTurn, StreamPacing } from './scriptedTurn.js';
import { type FramePlan, pause, writeSseFrames } from './sseResponse.js';
import { NO_TOKENS, turnStream } from './turnStream.js';

/**
 * Answers a request from the conversation it carries: an offline scripted "model". `turnIndex`
 * counts the Messages requests that reached the script, streaming or not, from 0.
 *
 * @example
 * const echo: ScriptFunction = (request, turnIndex) => {
 *   const last = request.messages.at(-1);
 *   return reply(`turn ${turnIndex}: you said ${JSON.stringify(last?.content)}`);
 * };
 */
export type ScriptFunction = (
  request: MessagesRequestBody,
  turnIndex: number,
) => ScriptedTurn | Promise<ScriptedTurn>;

/**
 * The server's answers: a list used one turn per request, or a function.
 *
 * @example
 * const script: Script = [rateLimited({ retryAfterSeconds: 1 }), reply('Hello!')];
 */
export type Script = readonly ScriptedTurn[] | ScriptFunction;

/**
 * Options of {@link startMessagesApiServer}.
 *
 * @example
 * const options: MessagesApiServerOptions = { script: [reply('Hi')], eventDelayMs: 5 };
 */
export interface MessagesApiServerOptions {
  script: Script;
  /** Interface to bind. Default `127.0.0.1`, so nothing outside the machine can reach it. */
  host?: string;
  /** Default 0: a free port chosen by the OS. */
  port?: number;
  /** Pause between SSE events for turns that don't set their own. Default 0. */
  eventDelayMs?: number;
  /**
   * The limits per minute the `anthropic-ratelimit-*` headers report. Defaults: 4,000 requests,
   * 2,000,000 input tokens, 400,000 output tokens. The server never refuses on its own account;
   * script a 429 for that.
   */
  rateLimits?: {
    requestsPerMinute?: number;
    inputTokensPerMinute?: number;
    outputTokensPerMinute?: number;
  };
  /**
   * How long an idle keep-alive connection stays open. Default Node's (5 s). A client whose
   * event loop stalls for longer can send its next request on a connection the server has just
   * closed; load tests raise this so that never happens.
   */
  keepAliveTimeoutMs?: number;
}

/**
 * A request the server received, as the client sent it.
 *
 * @example
 * const [first] = server.requests;
 * expect(first?.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
 * expect(first?.headers.authorization).toBe('Bearer test'); // how the SDK sends `apiKey: 'test'`
 */
export interface RecordedRequest {
  /** The turn that answered it; `null` when the script had no turn for it. */
  turnIndex: number | null;
  /** Request headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
  body: MessagesRequestBody;
}

/**
 * A running local Messages API. Point an `Anthropic` client at `baseURL`.
 *
 * @example
 * const server = await startMessagesApiServer({ script: [reply('Hi')] });
 * const client = new Anthropic({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
 * // … use the client …
 * expect(server.requests).toHaveLength(1);
 * await server.close();
 */
export interface MessagesApiServer {
  /** `http://127.0.0.1:<port>`, the `baseURL` for the SDK. */
  readonly baseURL: string;
  /**
   * Every Messages request that passed the checks (credential, version, body), in arrival order
   * (a live view).
   */
  readonly requests: readonly RecordedRequest[];
  /** How many requests were answered from the script. */
  readonly turnsServed: number;
  /**
   * Everything the server answered with an error the script did not ask for: a missing credential
   * or `anthropic-version`, a malformed request, an unknown route, the script ran out or its
   * function threw, a recorded stream that cannot be sent as one Message. Tests can assert it
   * stays empty.
   */
  readonly problems: readonly string[];
  /** Stops the server, breaking off streams still in flight. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a local Messages API server driven by `script`: a real HTTP server that answers
 * `POST /v1/messages` as the API does, so the official SDK and other clients can be tested
 * offline against the API's wire format.
 *
 * Before a request reaches the script it is checked as the API checks it, with the API's answers:
 * a credential (`x-api-key` or `authorization: Bearer …`, any value; else 401
 * `authentication_error`), an `anthropic-version` header shaped `YYYY-MM-DD` (else 400
 * `invalid_request_error`), and a JSON body with `model`, `max_tokens` and `messages` (else 400
 * naming the field). Other routes get 404 `not_found_error`. Each refusal is also listed in
 * `problems`.
 *
 * Each request that passes takes the next turn of the script:
 *
 * - with `stream: true` it gets server-sent events in the API's order and shapes;
 * - without (`stream: false` or absent) it gets one JSON Message (`id`, `type`, `role`, `model`,
 *   `content`, `stop_reason`, `stop_sequence`, `stop_details`, `usage`): exactly what those
 *   events add up to, as the SDK's `finalMessage()` rebuilds it, sent when the stream would
 *   have ended;
 * - an HTTP error turn answers the same either way. A turn whose stream is cut answers a
 *   non-streaming request with a destroyed connection, a body cut in half, or the cut's error as
 *   an HTTP error with the API's status for it (529 for `overloaded_error`).
 *
 * Every answer has a `request-id` header; error bodies are
 * `{ type: 'error', error: { type, message }, request_id }`, while a stream's `error` event
 * carries `{ type: 'error', error: { type, message } }` only, as the API documents. Once the
 * credential and version pass, answers also carry the API's rate-limit headers
 * (`anthropic-ratelimit-requests-*`, `-tokens-*`, `-input-tokens-*`, `-output-tokens-*`, each
 * `limit`, `remaining` and an RFC 3339 `reset`) from buckets that refill over a minute; token
 * counts are rounded to thousands, as the API rounds them. A scripted 429 empties the request
 * bucket and keeps its `retry-after`.
 *
 * Usage reports `input_tokens` (about four characters of system and messages a token, unless the
 * turn sets it), `cache_creation_input_tokens`, `cache_read_input_tokens`, `cache_creation`,
 * `output_tokens`, `service_tier` and `inference_geo` in `message_start`, and the cumulative
 * counts in `message_delta`.
 *
 * @example
 * const server = await startMessagesApiServer({
 *   script: [
 *     reply([{ type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
 *     reply('The file says hello.'),
 *   ],
 * });
 * const client = new Anthropic({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
 * const request = {
 *   model: 'claude-sonnet-5-5',
 *   max_tokens: 1024,
 *   messages: [{ role: 'user' as const, content: 'What does a.txt say?' }],
 * };
 * const streamed = await client.messages.stream(request).finalMessage(); // turn 0, streamed
 * console.log(streamed.stop_reason); // 'tool_use'
 * const whole = await client.messages.create(request); // turn 1, one JSON Message
 * console.log(whole.content); // [{ type: 'text', text: 'The file says hello.' }]
 * await server.close();
 */
export async function startMessagesApiServer(
  options: MessagesApiServerOptions,
): Promise<MessagesApiServer> {
  const state = new ServerState(
    options,
    new RateLimiter(resolveRateLimits(options.rateLimits), Date.now()),
  );
  const httpServer = createServer((req, res) => {
    void state.handle(req, res);
  });
  if (options.keepAliveTimeoutMs !== undefined) {
    httpServer.keepAliveTimeout = options.keepAliveTimeoutMs;
  }
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    baseURL: `http://${host}:${address.port}`,
    get requests() {
      return state.requests;
    },
    get turnsServed() {
      return state.turnsServed;
    },
    get problems() {
      return state.problems;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        state.abortAll();
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      return closing;
    },
  };
}

type TurnLookup = { ok: true; turn: ScriptedTurn } | { ok: false; problem: string };

class ServerState {
  readonly requests: RecordedRequest[] = [];
  readonly problems: string[] = [];
  turnsServed = 0;
  private nextTurnIndex = 0;
  private requestCount = 0;
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly options: MessagesApiServerOptions,
    private readonly rateLimiter: RateLimiter,
  ) {}

  abortAll(): void {
    for (const controller of this.inFlight) controller.abort();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A client that hangs up mid-answer makes these streams error; that is expected, not a failure.
    req.on('error', () => {});
    res.on('error', () => {});
    const controller = new AbortController();
    this.inFlight.add(controller);
    res.on('close', () => {
      controller.abort();
      this.inFlight.delete(controller);
    });
    this.requestCount += 1;
    const requestId = `req_test_${String(this.requestCount).padStart(6, '0')}`;
    try {
      await this.answer(req, res, requestId, controller.signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.refuse(res, requestId, {
        status: 500,
        errorType: 'api_error',
        message: `the test server failed: ${message}`,
      });
    }
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    signal: AbortSignal,
  ): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'POST' || path !== '/v1/messages') {
      const message = `this server only serves POST /v1/messages, not ${req.method} ${path}`;
      this.refuse(res, requestId, { status: 404, errorType: 'not_found_error', message });
      return;
    }
    const headers = flattenHeaders(req);
    const refusal = requestHeaderRefusal(headers);
    if (refusal !== undefined) {
      this.refuse(res, requestId, refusal);
      return;
    }
    const raw = await readBody(req);
    const json = parseJson(raw);
    if (!json.ok) {
      const message = `the request body is not JSON (${json.problem}): ${raw.slice(0, 200)}`;
      this.refuse(
        res,
        requestId,
        { status: 400, errorType: 'invalid_request_error', message },
        this.rateLimitHeaders(NO_TOKENS),
      );
      return;
    }
    const checked = parseMessagesRequest(json.value);
    if (!checked.ok) {
      this.refuse(
        res,
        requestId,
        { status: 400, errorType: 'invalid_request_error', message: checked.problem },
        this.rateLimitHeaders(NO_TOKENS),
      );
      return;
    }
    const record: RecordedRequest = { turnIndex: null, headers, body: checked.body };
    this.requests.push(record);
    const turnIndex = this.nextTurnIndex++;
    const lookup = await this.lookUpTurn(checked.body, turnIndex);
    if (!lookup.ok) {
      this.refuse(
        res,
        requestId,
        { status: 500, errorType: 'api_error', message: lookup.problem },
        this.rateLimitHeaders(NO_TOKENS),
      );
      return;
    }
    record.turnIndex = turnIndex;
    this.turnsServed += 1;
    await this.serve(res, lookup.turn, checked.body, turnIndex, requestId, signal);
  }

  private async lookUpTurn(body: MessagesRequestBody, turnIndex: number): Promise<TurnLookup> {
    const { script } = this.options;
    if (typeof script !== 'function') {
      const turn = script[turnIndex];
      if (turn !== undefined) return { ok: true, turn };
      return {
        ok: false,
        problem: `the script ran out: it has ${script.length} turn(s) and all were used, so the request for turn index ${turnIndex} has no scripted answer (add a turn to the script)`,
      };
    }
    try {
      const turn: unknown = await script(body, turnIndex);
      if (isScriptedTurn(turn)) return { ok: true, turn };
      return {
        ok: false,
        problem: `the script function returned no turn for turn index ${turnIndex} (got ${JSON.stringify(turn)})`,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        problem: `the script function threw for turn index ${turnIndex}: ${message}`,
      };
    }
  }

  private async serve(
    res: ServerResponse,
    turn: ScriptedTurn,
    body: MessagesRequestBody,
    turnIndex: number,
    requestId: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (!(await pause(turn.responseDelayMs ?? 0, signal))) return;
    if (turn.kind === 'http_error') {
      const headers = {
        ...this.rateLimitHeaders(NO_TOKENS, turn.status === 429),
        ...turn.headers,
      };
      sendJsonError(res, turn.status, turn.errorType, turn.message, requestId, headers);
      return;
    }
    const { frames, folded, cost } = turnStream(turn, body, turnIndex);
    const headers = { ...this.rateLimitHeaders(cost), 'request-id': requestId };
    const plan = this.framePlan(turn);
    if (body.stream === true) {
      await writeSseFrames(res, frames, plan, headers, signal);
      return;
    }
    await this.sendWhole(res, folded, frames.length, plan, requestId, headers, signal);
  }

  /** The non-streaming answer: the Message the stream adds up to, once the stream would be over. */
  private async sendWhole(
    res: ServerResponse,
    folded: FoldedStream,
    eventCount: number,
    plan: FramePlan,
    requestId: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<void> {
    const cut = plan.cut !== undefined && plan.cut.afterEvents <= eventCount ? plan.cut : undefined;
    const eventsSent = cut?.afterEvents ?? eventCount;
    if (!(await pause(plan.eventDelayMs * Math.max(0, eventsSent - 1), signal))) return;
    if (cut !== undefined) {
      const body = folded.kind === 'message' ? JSON.stringify(folded.message) : '';
      breakOffJson(res, cut, body, requestId, headers);
      return;
    }
    switch (folded.kind) {
      case 'message':
        sendJson(res, 200, folded.message, headers);
        return;
      case 'error':
        sendJsonError(
          res,
          apiErrorStatus(folded.errorType),
          folded.errorType,
          folded.message,
          requestId,
          headers,
        );
        return;
      case 'unusable':
        this.refuse(
          res,
          requestId,
          {
            status: 500,
            errorType: 'api_error',
            message: `this turn cannot be answered without streaming: ${folded.problem}`,
          },
          headers,
        );
        return;
    }
  }

  private framePlan(turn: StreamPacing): FramePlan {
    return {
      eventDelayMs: turn.eventDelayMs ?? this.options.eventDelayMs ?? 0,
      cut: turn.cut,
    };
  }

  private rateLimitHeaders(cost: RequestCost, exhausted = false): Record<string, string> {
    return this.rateLimiter.charge(cost, Date.now(), exhausted);
  }

  /** An error answer the script did not ask for: sent, and remembered in `problems`. */
  private refuse(
    res: ServerResponse,
    requestId: string,
    refusal: RequestRefusal,
    headers: Record<string, string> = {},
  ): void {
    this.problems.push(
      `${refusal.status} ${refusal.errorType}: ${refusal.explanation ?? refusal.message}`,
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJsonError(res, refusal.status, refusal.errorType, refusal.message, requestId, headers);
  }
}

function isScriptedTurn(value: unknown): value is ScriptedTurn {
  if (typeof value !== 'object' || value === null || !('kind' in value)) return false;
  return value.kind === 'reply' || value.kind === 'http_error' || value.kind === 'recorded_stream';
}
