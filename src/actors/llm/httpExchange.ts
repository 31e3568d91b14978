/**
 * One HTTP request and its response over `node:http`/`node:https`, for the lean transport: sent
 * on a keep-alive pool, timed out and aborted as the SDK times out and aborts a `fetch`, its body
 * read chunk by chunk.
 */

import type { Agent, ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import {
  type APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { errorMessage } from '../../machine/index.js';

/**
 * How requests of one protocol are sent: Node's `request` and a keep-alive pool for it.
 *
 * @example
 * const { request, Agent } = await import('node:http');
 * const connector: Connector = { request, agent: new Agent({ keepAlive: true }) };
 */
export interface Connector {
  request: (
    url: URL,
    options: { method: string; headers: OutgoingHttpHeaders; agent: Agent },
  ) => ClientRequest;
  agent: Agent;
}

/**
 * A request whose response has started: its status and headers are in, its body is to read.
 *
 * @example
 * const { response } = await exchange(connector, call, signal);
 * console.log(response.statusCode);
 */
export interface Exchange {
  request: ClientRequest;
  response: IncomingMessage;
}

/**
 * A POST to send: where, with which headers and body, and how long to wait for its response.
 *
 * @example
 * const call: OutgoingCall = { url, headers, body: '{"model":"…"}', timeoutMs: 600_000 };
 */
export interface OutgoingCall {
  url: URL;
  headers: OutgoingHttpHeaders;
  body: string;
  timeoutMs: number;
}

/** Codes of a pooled connection the server closed while it sat idle. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Sends a POST and resolves when its response starts. A pooled connection the server had closed
 * while it sat idle is replaced by a new one and the request sent again (the server took nothing
 * in); every other failure rejects as the SDK reports a `fetch` that got no response:
 * `APIUserAbortError` once `signal` aborted, `APIConnectionTimeoutError` when no response came
 * within `timeoutMs` (the SDK times out a request only until its headers arrive) or the
 * transport timed out, `APIConnectionError` with the transport's error as its cause otherwise.
 * Aborting `signal` later breaks the response off.
 *
 * @example
 * const { request, response } = await exchange(connector, call, signal);
 */
export async function exchange(
  connector: Connector,
  call: OutgoingCall,
  signal: AbortSignal,
): Promise<Exchange> {
  for (;;) {
    const outcome = await sendOnce(connector, call, signal);
    if (outcome.ok) return outcome.exchange;
    if (!outcome.staleConnection || signal.aborted) throw connectionFailure(outcome.error, signal);
  }
}

type Attempt =
  { ok: true; exchange: Exchange } | { ok: false; error: unknown; staleConnection: boolean };

function sendOnce(connector: Connector, call: OutgoingCall, signal: AbortSignal): Promise<Attempt> {
  return new Promise((resolve) => {
    const { url, headers, body, timeoutMs } = call;
    const request = connector.request(url, { method: 'POST', headers, agent: connector.agent });
    const abort = () => request.destroy(new APIUserAbortError());
    const release = () => signal.removeEventListener('abort', abort);
    signal.addEventListener('abort', abort, { once: true });
    request.once('close', release);
    const timer = setTimeout(() => request.destroy(new APIConnectionTimeoutError()), timeoutMs);
    request.once('response', (response) => {
      clearTimeout(timer);
      // A response read to its end leaves its connection to the pool: no later abort may touch it.
      response.once('end', release);
      resolve({ ok: true, exchange: { request, response } });
    });
    // Stays on for the whole exchange: an error once the response started is the body's to report.
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const staleConnection = request.reusedSocket && STALE_CONNECTION_CODES.has(error.code ?? '');
      resolve({ ok: false, error, staleConnection });
    });
    request.end(body);
  });
}

function connectionFailure(error: unknown, signal: AbortSignal): APIError {
  if (signal.aborted) return new APIUserAbortError();
  if (error instanceof APIConnectionError) return error;
  const cause = error instanceof Error ? error : new Error(errorMessage(error));
  // The SDK's own test for a transport that timed out.
  if (/timed? ?out/i.test(`${String(cause)}${'cause' in cause ? String(cause.cause) : ''}`)) {
    return new APIConnectionTimeoutError();
  }
  return new APIConnectionError({ cause });
}

/**
 * Reads the response body to its end, handing each chunk to `onChunk` (decompressed, if the
 * server compressed it although it was not asked to). Rejects with what `onChunk` throws, or
 * with what broke the body off: a connection that closed first is an `ECONNRESET` error saying
 * so, its cause the socket's error if there was one. Either way the request is destroyed.
 *
 * @example
 * await readBody({ request, response }, (chunk) => decoder.push(chunk));
 */
export async function readBody(
  { request, response }: Exchange,
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  const body = await decoded(response);
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      request.destroy();
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      try {
        onChunk(chunk);
      } catch (error) {
        fail(error instanceof Error ? error : new Error(errorMessage(error)));
      }
    });
    body.once('end', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    if (body !== response) body.on('error', fail);
    response.on('error', (error) => fail(connectionLost(error)));
    response.once('close', () => {
      if (!response.complete) fail(connectionLost(undefined));
    });
  });
}

/**
 * Reads the whole response body as text, as `Response.text()` decodes it: UTF-8, a byte order
 * mark dropped.
 *
 * @example
 * const text = await readText(exchange);
 */
export async function readText(exchange: Exchange): Promise<string> {
  const chunks: Buffer[] = [];
  await readBody(exchange, (chunk) => chunks.push(chunk));
  const text = Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The response's headers as a `Headers`, the way `fetch` reports them (repeated fields joined),
 * which is what the SDK's errors hold.
 *
 * @example
 * headersOf(response).get('request-id');
 */
export function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    headers.append(raw[index]!, raw[index + 1]!);
  }
  return headers;
}

async function decoded(response: IncomingMessage): Promise<Readable> {
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return response;
  // Loaded only for a server that compresses unasked, which the API does not.
  const zlib = await import('node:zlib');
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(zlib.createGunzip());
    case 'deflate':
      return response.pipe(zlib.createInflate());
    case 'br':
      return response.pipe(zlib.createBrotliDecompress());
    default:
      return response;
  }
}

function connectionLost(cause: unknown): Error {
  const error = new Error(
    'the connection closed before the response ended',
    cause === undefined ? undefined : { cause },
  );
  return Object.assign(error, { code: 'ECONNRESET' });
}
