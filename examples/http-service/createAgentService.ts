/**
 * An HTTP service hosting many agents, with nothing but `node:http`:
 *
 * | method and path                        | does                                           |
 * | -------------------------------------- | ---------------------------------------------- |
 * | `POST /agents`                         | creates an agent in its own workspace → `201`  |
 * | `GET /agents/:id`                      | its state and the calls awaiting approval      |
 * | `POST /agents/:id/messages`            | sends `{ "text": "…" }` (queued during a turn) |
 * | `GET /agents/:id/events`               | Server-Sent Events (resumes at Last-Event-ID)  |
 * | `POST /agents/:id/approvals/:callId`   | `{ "decision": "allow" \| "deny" }`            |
 * | `POST /agents/:id/interrupt`           | cancels the current turn, keeps the agent      |
 * | `DELETE /agents/:id`                   | shuts the agent down → `204`                   |
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { createAgent, type CreateAgentOptions, type PermissionMode } from 'agent-statechart';
import { AgentSession } from './agentSession.js';
import {
  closeServer,
  HttpError,
  listen,
  readJson,
  routeErrorsToAnswers,
  sendJson,
} from './http.js';

/**
 * Options of {@link createAgentService}.
 *
 * @example
 * const options: AgentServiceOptions = {
 *   workspaceRoot: '/srv/agents',
 *   anthropic: { apiKey: process.env.ANTHROPIC_API_KEY },
 * };
 */
export interface AgentServiceOptions {
  /** Each agent works in `<workspaceRoot>/<agent id>`, created for it. */
  workspaceRoot: string;
  /** Where the Messages API is (`baseURL`) and the key to use. Default: the SDK's defaults. */
  anthropic?: { baseURL?: string; apiKey?: string };
  /** Permission mode of new agents unless the request names one. Default `default`. */
  permissionMode?: PermissionMode;
  /** More `createAgent` options for every agent (model, system prompt, retry scale, …). */
  agentOptions?: Omit<CreateAgentOptions, 'workspace' | 'anthropic' | 'permissions'>;
  /** At most this many live agents. Default 100. */
  maxAgents?: number;
}

/**
 * A running (or ready to run) agent service.
 *
 * @example
 * const service = createAgentService({ workspaceRoot: '/tmp/agents' });
 * const url = await service.listen(8080);
 * // …
 * await service.close();
 */
export interface AgentService {
  readonly server: Server;
  /** Starts listening (default: a free port on 127.0.0.1); resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Shuts every agent down, then stops the server. */
  close(): Promise<void>;
}

const PERMISSION_MODES: PermissionMode[] = ['plan', 'default', 'acceptEdits', 'bypassPermissions'];

/**
 * Creates the service. Nothing listens until `listen` is called.
 *
 * @example
 * import { createAgentService } from './createAgentService.js';
 * const service = createAgentService({ workspaceRoot: './workspaces' });
 * console.log(`listening on ${await service.listen(8080)}`);
 */
export function createAgentService(options: AgentServiceOptions): AgentService {
  const sessions = new Map<string, AgentSession>();
  const workspaceRoot = resolve(options.workspaceRoot);

  async function createSession(body: Record<string, unknown>): Promise<AgentSession> {
    if (sessions.size >= (options.maxAgents ?? 100)) {
      throw new HttpError(429, 'too many agents; delete one first');
    }
    const mode = body.permissionMode ?? options.permissionMode ?? 'default';
    if (!PERMISSION_MODES.includes(mode as PermissionMode)) {
      throw new HttpError(400, `permissionMode must be one of ${PERMISSION_MODES.join(', ')}`);
    }
    const id = randomUUID();
    const workspace = join(workspaceRoot, id);
    await mkdir(workspace, { recursive: true });
    const agent = createAgent({
      ...options.agentOptions,
      ...(typeof body.system === 'string' ? { system: body.system } : {}),
      workspace,
      permissions: { mode: mode as PermissionMode },
      ...(options.anthropic === undefined ? {} : { anthropic: options.anthropic }),
    });
    const session = new AgentSession(id, agent, workspace);
    sessions.set(id, session);
    return session;
  }

  function sessionOf(id: string): AgentSession {
    const session = sessions.get(id);
    if (session === undefined) throw new HttpError(404, `no agent '${id}'`);
    return session;
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter((part) => part !== '');
    const method = request.method ?? 'GET';
    if (parts[0] !== 'agents') throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const [, id, action, callId] = parts;

    if (id === undefined && method === 'POST') {
      const session = await createSession(await readJson(request));
      return sendJson(response, 201, { id: session.id, workspace: session.workspace });
    }
    if (id === undefined) throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const session = sessionOf(id);

    if (action === undefined && method === 'GET') {
      return sendJson(response, 200, {
        id,
        state: session.agent.state,
        messages: session.agent.context.messages.length,
        pendingApprovals: session.pendingApprovals,
      });
    }
    if (action === undefined && method === 'DELETE') {
      sessions.delete(id);
      await session.close();
      response.writeHead(204).end();
      return;
    }
    if (action === 'events' && method === 'GET') {
      const lastEventId = Number(request.headers['last-event-id'] ?? 0);
      return session.subscribe(response, Number.isFinite(lastEventId) ? lastEventId : 0);
    }
    if (action === 'messages' && method === 'POST') {
      const { text } = await readJson(request);
      if (typeof text !== 'string' || text === '') {
        throw new HttpError(400, 'send { "text": "…" } with a non-empty text');
      }
      const busy = session.agent.state !== 'WaitingForUserInput';
      session.agent.send(text);
      return sendJson(response, 202, { queued: busy });
    }
    if (action === 'approvals' && callId !== undefined && method === 'POST') {
      const { decision, remember } = await readJson(request);
      if (decision !== 'allow' && decision !== 'deny') {
        throw new HttpError(400, 'send { "decision": "allow" } or { "decision": "deny" }');
      }
      if (!session.pendingApprovals.includes(callId)) {
        throw new HttpError(409, `tool call '${callId}' is not waiting for approval`);
      }
      const choice = { remember: remember === true };
      if (decision === 'allow') session.agent.approve(callId, choice);
      else session.agent.deny(callId, choice);
      return sendJson(response, 202, { decision });
    }
    if (action === 'interrupt' && method === 'POST') {
      session.agent.interrupt();
      return sendJson(response, 202, { state: session.agent.state });
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  }

  const server = createServer(routeErrorsToAnswers(route));

  return {
    server,
    listen: (port = 0, host = '127.0.0.1') => listen(server, port, host),
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.close()));
      sessions.clear();
      await closeServer(server);
    },
  };
}
