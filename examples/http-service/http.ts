/**
 * The little HTTP the example services share, with `node:http` only: JSON bodies in and out,
 * errors as answers, and listening on a port.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  answersProblem,
  type UserAnswers,
  type UserQuestion,
  validateEvent,
} from 'agent-statechart';

const MAX_BODY_BYTES = 1_000_000;

/** An answer the route handlers give by throwing: status and message. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * An approval's body, checked: `decision`, with a `reason` for a deny (the model reads it) or an
 * edited `input` for an allow. Anything else is a 400 that says what to send.
 */
export function approvalOf(
  decision: unknown,
  reason: unknown,
  input: unknown,
):
  | { decision: 'allow'; extra: { input?: Record<string, unknown> } }
  | { decision: 'deny'; extra: { reason?: string } } {
  if (decision === 'deny') {
    if (input !== undefined) throw new HttpError(400, 'a deny runs nothing: send no "input"');
    if (reason !== undefined && typeof reason !== 'string') {
      throw new HttpError(400, '"reason" must be text the model reads');
    }
    return { decision, extra: reason === undefined ? {} : { reason } };
  }
  if (decision === 'allow') {
    if (reason !== undefined) throw new HttpError(400, '"reason" goes with a deny');
    if (
      input !== undefined &&
      (typeof input !== 'object' || input === null || Array.isArray(input))
    ) {
      throw new HttpError(400, '"input" must be the tool\'s input object');
    }
    return {
      decision,
      extra: input === undefined ? {} : { input: input as Record<string, unknown> },
    };
  }
  throw new HttpError(
    400,
    'send { "decision": "allow", "input"?: {…} } or { "decision": "deny", "reason"?: "…" }',
  );
}

/**
 * An answer's body, checked against the questions it answers: `answers`, one per question in
 * order — a choice's label or the user's own words, an array of them for a multi-select
 * question, `""` for none. Anything else is a 400 that says what to send.
 */
export function answersOf(answers: unknown, questions: readonly UserQuestion[]): UserAnswers {
  const count = `${questions.length} answer${questions.length === 1 ? '' : 's'}`;
  const expected = `send { "answers": [...] } with ${count}, one per question in order: a choice's label or your own words, an array of them where several may be picked, "" for none`;
  // The shape is the chart's own check of a UserAnswer; how many, the questions'.
  if (validateEvent({ type: 'UserAnswer', callId: 'answer', answers }) !== null) {
    throw new HttpError(400, expected);
  }
  const problem = answersProblem(questions, answers as UserAnswers);
  if (problem !== null) throw new HttpError(400, `${problem}: ${expected}`);
  return answers as UserAnswers;
}

/** The request's body, a JSON object (`{}` when empty); `HttpError` 400/413 otherwise. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body over 1 MB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/**
 * Starts a Server-Sent Events stream on `response`. The headers go out at once: a client waits
 * for them before it reads any event.
 */
export function openEventStream(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();
}

/** Writes one Server-Sent Event: its id, its name and its data as JSON. */
export function writeEvent(
  response: ServerResponse,
  id: number,
  type: string,
  data: unknown,
): void {
  response.write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Runs `route` for each request; what it throws becomes the answer. */
export function routeErrorsToAnswers(
  route: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    route(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      // A stream already started cannot change its status; end it instead.
      if (response.headersSent) response.end();
      else sendJson(response, status, { error: message });
    });
  };
}

/** Starts `server` listening; resolves to its base URL. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Stops `server`, closing the connections still open (event streams among them). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

/** On Ctrl-C or SIGTERM: runs `stop`, then exits (1 if it failed). */
export function stopOnSignals(stop: () => Promise<unknown>): void {
  const onSignal = () => {
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
