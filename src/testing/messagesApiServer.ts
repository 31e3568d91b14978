/**
 * A local stand-in for the Anthropic Messages API: a real HTTP server that answers
 * `POST /v1/messages` with `stream: true` from a script, so the real SDK (and everything built on
 * it) can be tested offline against the API's actual wire format.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiErrorType, apiErrorBody } from './apiErrorBody.js';
import { type MessagesRequestBody, parseMessagesRequest } from './messagesRequest.js';
import { replyEvents } from './replyEvents.js';
import type { ScriptedTurn, StreamPacing } from './scriptedTurn.js';
import { encodeSseEvent, splitSseFrames } from './sseEncoding.js';
import { pause, writeSseFrames } from './sseResponse.js';

/**
 * Answers a request from the conversation it carries: an offline scripted "model". `turnIndex`
 * counts streaming requests from 0.
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
 * The server's answers: a list used one turn per streaming request, or a function.
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
 * expect(first?.headers['x-api-key']).toBe('test');
 */
export interface RecordedRequest {
  /** The turn that answered it; `null` for a request refused before taking a turn (not streaming). */
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
  /** Every well-formed Messages request received, in arrival order (a live view). */
  readonly requests: readonly RecordedRequest[];
  /** How many requests were answered from the script. */
  readonly turnsServed: number;
  /**
   * Everything the server answered with an error the script did not ask for: the script ran out,
   * the script function threw, a malformed or non-streaming request, an unknown route. Tests can
   * assert it stays empty.
   */
  readonly problems: readonly string[];
  /** Stops the server, breaking off streams still in flight. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a local Messages API server driven by `script`.
 *
 * @example
 * const server = await startMessagesApiServer({
 *   script: [
 *     reply([{ type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }]),
 *     reply('The file says hello.'),
 *   ],
 * });
 * const client = new Anthropic({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
 * const stream = await client.messages.create({
 *   model: 'claude-sonnet-5-5',
 *   max_tokens: 1024,
 *   messages: [{ role: 'user', content: 'What does a.txt say?' }],
 *   stream: true,
 * });
 * for await (const event of stream) console.log(event.type);
 * await server.close();
 */
export async function startMessagesApiServer(
  options: MessagesApiServerOptions,
): Promise<MessagesApiServer> {
  const state = new ServerState(options);
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

  constructor(private readonly options: MessagesApiServerOptions) {}

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
      this.refuse(res, 500, 'api_error', `the test server failed: ${message}`, requestId);
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
      const problem = `this server only serves POST /v1/messages, not ${req.method} ${path}`;
      this.refuse(res, 404, 'not_found_error', problem, requestId);
      return;
    }
    const raw = await readBody(req);
    const json = parseJson(raw);
    if (!json.ok) {
      const problem = `the request body is not JSON (${json.problem}): ${raw.slice(0, 200)}`;
      this.refuse(res, 400, 'invalid_request_error', problem, requestId);
      return;
    }
    const checked = parseMessagesRequest(json.value);
    if (!checked.ok) {
      this.refuse(res, 400, 'invalid_request_error', checked.problem, requestId);
      return;
    }
    const record: RecordedRequest = {
      turnIndex: null,
      headers: flattenHeaders(req),
      body: checked.body,
    };
    this.requests.push(record);
    if (checked.body.stream !== true) {
      const problem =
        'this test server answers streaming requests only: send `stream: true` (e.g. client.messages.create({ ..., stream: true }) or client.messages.stream(...))';
      this.refuse(res, 400, 'invalid_request_error', problem, requestId);
      return;
    }
    const turnIndex = this.nextTurnIndex++;
    const lookup = await this.lookUpTurn(checked.body, turnIndex);
    if (!lookup.ok) {
      this.refuse(res, 500, 'api_error', lookup.problem, requestId);
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
    switch (turn.kind) {
      case 'http_error':
        sendJsonError(res, turn.status, turn.errorType, turn.message, requestId, turn.headers);
        return;
      case 'reply': {
        const inputTokens = estimateTokens(JSON.stringify([body.system ?? '', body.messages]));
        const events = replyEvents(turn, {
          turnIndex,
          model: body.model,
          inputTokens,
        });
        const frames = events.map(encodeSseEvent);
        await writeSseFrames(res, frames, this.framePlan(turn), requestId, signal);
        return;
      }
      case 'recorded_stream':
        await writeSseFrames(
          res,
          splitSseFrames(turn.sse),
          this.framePlan(turn),
          requestId,
          signal,
        );
        return;
    }
  }

  private framePlan(turn: StreamPacing) {
    return {
      eventDelayMs: turn.eventDelayMs ?? this.options.eventDelayMs ?? 0,
      cut: turn.cut,
    };
  }

  /** An error answer the script did not ask for: sent, and remembered in `problems`. */
  private refuse(
    res: ServerResponse,
    status: number,
    errorType: ApiErrorType,
    problem: string,
    requestId: string,
  ): void {
    this.problems.push(`${status} ${errorType}: ${problem}`);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJsonError(res, status, errorType, problem, requestId);
  }
}

function sendJsonError(
  res: ServerResponse,
  status: number,
  errorType: ApiErrorType,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'request-id': requestId,
  });
  res.end(JSON.stringify(apiErrorBody(errorType, message, requestId)));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return {
      ok: false,
      problem: error instanceof Error ? error.message : String(error),
    };
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function isScriptedTurn(value: unknown): value is ScriptedTurn {
  if (typeof value !== 'object' || value === null || !('kind' in value)) return false;
  return value.kind === 'reply' || value.kind === 'http_error' || value.kind === 'recorded_stream';
}

/** Roughly four characters per token: enough for plausible `usage` numbers. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
