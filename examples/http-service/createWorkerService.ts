/**
 * The HTTP service as one of many workers on one PostgreSQL (`agent-statechart/dbos`): any worker
 * answers any request, whichever worker drives the session, and a client that reconnects to
 * another worker resumes its event stream where it stopped.
 *
 * | method and path                              | does                                          |
 * | -------------------------------------------- | --------------------------------------------- |
 * | `POST /sessions`                             | creates a session → `201 { id }`              |
 * | `GET /sessions/:id`                          | its state, calls awaiting approval, questions |
 * | `POST /sessions/:id/messages`                | sends `{ "text": "…" }` → `202 { drive }`     |
 * | `POST /sessions/:id/approvals/:callId`       | `{ "decision": "allow", "input"? }` or `{ "decision": "deny", "reason"? }` → `202` |
 * | `POST /sessions/:id/answers/:callId`         | `{ "answers": ["…", ["…", "…"]] }`, one per question → `202 { drive }` |
 * | `GET /sessions/:id/drives/:drive/events`     | Server-Sent Events of one drive, from `Last-Event-ID` |
 *
 * A drive is the work one input sets off, until the session needs input again; its events are
 * numbered from 0, and the stream ends with an `idle` event.
 *
 * The hooks are the worker's (`startSessionWorker({ hooks, hookTimeoutMs })`; `workerMain.ts`
 * loads them from the module `AGENT_HOOKS` names): each runs as a step of the drive, and the
 * stream carries what comes of it like anything else the agent says. A prompt the
 * `userPromptSubmit` hook blocks is a `promptDropped` event with the hook's reason (the drive
 * then rests, and the model is not called); a `stop` hook that has the turn go on is a second
 * model call in the same drive.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AgentCore, QuestionsAsked, SessionCore, UserQuestion } from 'agent-statechart';
import { sessionOfDrive, type SessionWorker } from 'agent-statechart/dbos';
import {
  answersOf,
  approvalOf,
  closeServer,
  HttpError,
  listen,
  openEventStream,
  readJson,
  routeErrorsToAnswers,
  sendJson,
  writeEvent,
} from './http.js';

/**
 * A worker's HTTP front.
 *
 * @example
 * const service = createWorkerService(await startSessionWorker(options));
 * console.log(await service.listen(8080));
 */
export interface WorkerService {
  readonly server: Server;
  /** Starts listening (default: a free port on 127.0.0.1); resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops the server (the worker is the caller's to stop). */
  close(): Promise<void>;
}

/**
 * The questions of a session's `ask_user` calls still waiting for answers. (A call waits only
 * once the chart found its questions well formed, so its input holds them as asked.)
 */
function openQuestions(core: AgentCore): QuestionsAsked[] {
  return core.context.toolRuns
    .filter((run) => run.status === 'awaitingAnswer')
    .map((run) => ({
      callId: run.call.id,
      questions: (run.call.input as { questions: UserQuestion[] }).questions,
    }));
}

/**
 * Serves the sessions of `worker` (and of every other worker on the same database).
 *
 * @example
 * const service = createWorkerService(worker);
 */
export function createWorkerService(worker: SessionWorker): WorkerService {
  async function opened(id: string): Promise<SessionCore> {
    try {
      return await worker.open(id);
    } catch (error) {
      if ((error as { code?: string }).code === 'SESSION_NOT_FOUND') {
        throw new HttpError(404, `no session '${id}'`);
      }
      throw error;
    }
  }

  async function streamDrive(
    request: IncomingMessage,
    response: ServerResponse,
    drive: string,
  ): Promise<void> {
    const last = Number(request.headers['last-event-id'] ?? -1);
    const from = Number.isInteger(last) && last >= 0 ? last + 1 : 0;
    openEventStream(response);
    let offset = from;
    for await (const value of worker.events(drive, from)) {
      if (response.closed) break;
      writeEvent(response, offset, value.type, value);
      offset += 1;
    }
    response.end();
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter((part) => part !== '');
    const method = request.method ?? 'GET';
    if (parts[0] !== 'sessions') throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const [, id, action, detail, tail] = parts;

    if (id === undefined && method === 'POST') {
      const sessionId = randomUUID();
      await worker.createSession(sessionId);
      return sendJson(response, 201, { id: sessionId });
    }
    if (id === undefined) throw new HttpError(404, `no route ${method} ${url.pathname}`);

    if (action === undefined && method === 'GET') {
      const { core } = await opened(id);
      return sendJson(response, 200, {
        id,
        state: core.state,
        messages: core.context.messages.length,
        pendingApprovals: core.context.toolRuns
          .filter((run) => run.status === 'awaitingApproval')
          .map((run) => run.call.id),
        pendingQuestions: openQuestions(core),
      });
    }
    if (action === 'messages' && method === 'POST') {
      const { text } = await readJson(request);
      if (typeof text !== 'string' || text === '') {
        throw new HttpError(400, 'send { "text": "…" } with a non-empty text');
      }
      await opened(id);
      const { workflowId } = await worker.send(id, {
        type: 'UserInput',
        message: { role: 'user', content: text },
      });
      return sendJson(response, 202, { drive: workflowId });
    }
    if (action === 'approvals' && detail !== undefined && method === 'POST') {
      const { decision, reason, input } = await readJson(request);
      const approval = approvalOf(decision, reason, input);
      const { core } = await opened(id);
      const waiting = core.context.toolRuns.some(
        (run) => run.call.id === detail && run.status === 'awaitingApproval',
      );
      if (!waiting) throw new HttpError(409, `tool call '${detail}' is not waiting for approval`);
      const { workflowId } = await worker.send(id, {
        type: 'ToolApproval',
        callId: detail,
        decision: approval.decision,
        ...approval.extra,
      });
      return sendJson(response, 202, { drive: workflowId });
    }
    if (action === 'answers' && detail !== undefined && method === 'POST') {
      const body = await readJson(request);
      const { core } = await opened(id);
      const asked = openQuestions(core).find((open) => open.callId === detail);
      if (asked === undefined) {
        throw new HttpError(409, `tool call '${detail}' is not waiting for answers`);
      }
      const { workflowId } = await worker.send(id, {
        type: 'UserAnswer',
        callId: detail,
        answers: answersOf(body.answers, asked.questions),
      });
      return sendJson(response, 202, { drive: workflowId });
    }
    if (action === 'drives' && detail !== undefined && tail === 'events' && method === 'GET') {
      if (sessionOfDrive(detail) !== id) {
        throw new HttpError(404, `no drive '${detail}' of session '${id}'`);
      }
      return streamDrive(request, response, detail);
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  }

  const server = createServer(routeErrorsToAnswers(route));
  return {
    server,
    listen: (port = 0, host = '127.0.0.1') => listen(server, port, host),
    close: () => closeServer(server),
  };
}
