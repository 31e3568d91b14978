/**
 * An HTTP service hosting many durable agent sessions, with nothing but `node:http` and
 * `createAgentHost`: every session lives in the session store (SQLite by default, see main.ts), so
 * restarting the service — or its crash — loses none; a session is loaded on its first request
 * and leaves memory once idle.
 *
 * | method and path                        | does                                           |
 * | -------------------------------------- | ---------------------------------------------- |
 * | `POST /agents`                         | creates an agent in its own workspace → `201`  |
 * | `GET /agents/:id`                      | its state, calls awaiting approval, questions  |
 * | `POST /agents/:id/messages`            | sends `{ "text": "…" }` (queued during a turn) |
 * | `GET /agents/:id/events`               | Server-Sent Events (resumes at Last-Event-ID)  |
 * | `POST /agents/:id/approvals/:callId`   | `{ "decision": "allow", "input"? }` or         |
 * |                                        | `{ "decision": "deny", "reason"? }`            |
 * | `POST /agents/:id/answers/:callId`     | `{ "answers": ["…", ["…", "…"]] }`: one per    |
 * |                                        | question the model asked (`question` events)   |
 * | `POST /agents/:id/interrupt`           | cancels the current turn, keeps the agent      |
 * | `POST /agents/:id/compact`             | `{ "instructions"? }`: summarises the older    |
 * |                                        | part of the conversation, between turns        |
 * | `DELETE /agents/:id`                   | ends the session, removes it from the store    |
 *
 * With `hooks`, the caller's code runs at the points of every turn: a prompt the
 * `userPromptSubmit` hook blocks never reaches the model, and comes back to the clients as a
 * `promptDropped` event with the hook's reason; a `stop` hook may have a turn go on once.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import {
  type AgentHooks,
  type AgentNotificationName,
  createAgentHost,
  type CreateAgentOptions,
  PERMISSION_MODES,
  type PermissionMode,
  type SessionStore,
} from 'agent-statechart';
import {
  answersOf,
  approvalOf,
  closeServer,
  HttpError,
  listen,
  readJson,
  routeErrorsToAnswers,
  sendJson,
} from './http.js';
import { eventIds, SessionEvents } from './sessionEvents.js';

/**
 * Options of {@link createAgentService}.
 *
 * @example
 * const options: AgentServiceOptions = {
 *   workspaceRoot: '/srv/agents',
 *   store: createSqliteSessionStore({ path: '/srv/agents/sessions.db' }),
 *   anthropic: { apiKey: process.env.ANTHROPIC_API_KEY },
 * };
 */
export interface AgentServiceOptions {
  /** Each agent works in `<workspaceRoot>/<agent id>`, created for it. */
  workspaceRoot: string;
  /** Where the sessions live. The service does not close it: its owner does, after `close`. */
  store: SessionStore;
  /** Where the Messages API is (`baseURL`) and the key to use. Default: the SDK's defaults. */
  anthropic?: { baseURL?: string; apiKey?: string };
  /** Permission mode of new agents unless the request names one. Default `default`. */
  permissionMode?: PermissionMode;
  /**
   * Let the model ask the user questions (the `ask_user` tool): each is a `question` event, and
   * the turn waits for `POST /agents/:id/answers/:callId`. Default true: the service's clients
   * answer approvals already; turn it off where nobody would answer.
   */
  askUser?: boolean;
  /**
   * The caller's code at the points of every agent's turns (see `CreateAgentOptions.hooks`):
   * `userPromptSubmit` before a prompt starts a turn (a blocked prompt is a `promptDropped` event,
   * and the model never sees it), `preToolUse` and `postToolUse` around each tool call, `stop`
   * when a turn would end (it may go on once). A hook is not told which agent it runs for: give a
   * function of the agent instead, for hooks that work in its workspace. It is asked each time the
   * session is loaded (after a restart, or once it left memory), so it must give the same hooks
   * for the same agent each time.
   *
   * @example
   * createAgentService({
   *   workspaceRoot,
   *   store,
   *   hooks: ({ workspace }) => ({
   *     stop: async () =>
   *       (await testsPass(workspace)) ? undefined : { decision: 'continue', reason: 'the tests fail: fix them' },
   *   }),
   * });
   */
  hooks?: AgentHooks | ((agent: { id: string; workspace: string }) => AgentHooks);
  /** How long one hook may take, in milliseconds. Default 60 000. */
  hookTimeoutMs?: number;
  /**
   * More `createAgent` options for every agent (model, system prompt, retry scale, …). The hooks
   * are the service's own options above.
   */
  agentOptions?: Omit<
    CreateAgentOptions,
    | 'workspace'
    | 'anthropic'
    | 'permissions'
    | 'store'
    | 'sessionId'
    | 'sessionMetadata'
    | 'hooks'
    | 'hookTimeoutMs'
  >;
  /** How long an idle session (and its event log) stays in memory. Default 5 minutes. */
  idleMs?: number;
}

/**
 * A running (or ready to run) agent service.
 *
 * @example
 * const service = createAgentService({ workspaceRoot: '/tmp/agents', store });
 * const url = await service.listen(8080);
 * // …
 * await service.close();
 */
export interface AgentService {
  readonly server: Server;
  /** Starts listening (default: a free port on 127.0.0.1); resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Takes every session out of memory (they stay in the store), then stops the server. */
  close(): Promise<void>;
}

/** Notifications forwarded to clients. (`action` is left out: `turnEnd` says what matters.) */
const FORWARDED: AgentNotificationName[] = [
  'state',
  'llmStart',
  'text',
  'llmEnd',
  'toolStart',
  'toolEnd',
  'approvalRequest',
  'question',
  'promptDropped',
  'compacting',
  'compacted',
  'compactionSkipped',
  'retry',
  'error',
  'commit',
  'diagnostic',
];

/**
 * Creates the service. Nothing listens until `listen` is called.
 *
 * @example
 * import { createSqliteSessionStore } from 'agent-statechart';
 * import { createAgentService } from './createAgentService.js';
 * const store = createSqliteSessionStore({ path: './workspaces/sessions.db' });
 * const service = createAgentService({ workspaceRoot: './workspaces', store });
 * console.log(`listening on ${await service.listen(8080)}`);
 */
export function createAgentService(options: AgentServiceOptions): AgentService {
  const { store } = options;
  const workspaceRoot = resolve(options.workspaceRoot);
  const idleMs = options.idleMs ?? 5 * 60_000;
  const { hooks } = options;
  const hooksOf = (id: string, workspace: string): { hooks?: AgentHooks } => {
    if (hooks === undefined) return {};
    return { hooks: typeof hooks === 'function' ? hooks({ id, workspace }) : hooks };
  };
  const host = createAgentHost({
    ...options.agentOptions,
    store,
    idleMs,
    permissions: { mode: options.permissionMode ?? 'default' },
    askUser: options.askUser ?? options.agentOptions?.askUser ?? true,
    ...(options.anthropic === undefined ? {} : { anthropic: options.anthropic }),
    ...(options.hookTimeoutMs === undefined ? {} : { hookTimeoutMs: options.hookTimeoutMs }),
    // A session's workspace follows from its id, so a session loaded after a restart finds it;
    // its hooks are made with the session, as they may work in that workspace.
    sessionOptions: (id) => {
      const workspace = join(workspaceRoot, id);
      return { workspace, ...hooksOf(id, workspace) };
    },
  });

  // Event logs for watchers, by session; each forgets itself once idle with no client.
  const logs = new Map<string, SessionEvents>();
  const nextEventId = eventIds();
  const eventsOf = (id: string): SessionEvents => {
    let log = logs.get(id);
    if (log === undefined) {
      const created = new SessionEvents(
        () => {
          if (logs.get(id) === created) logs.delete(id);
        },
        idleMs,
        nextEventId,
      );
      logs.set(id, created);
      log = created;
    }
    return log;
  };
  for (const name of FORWARDED) {
    host.on(name, ({ sessionId, ...payload }) => eventsOf(sessionId).record(name, payload));
  }
  // The chart emits `WaitForInput` when a turn is over and no queued input follows.
  host.on('action', ({ sessionId, type }) => {
    if (type === 'WaitForInput')
      eventsOf(sessionId).record('turnEnd', { state: 'WaitingForUserInput' });
  });

  async function createSession(body: Record<string, unknown>): Promise<string> {
    const mode = body.permissionMode ?? options.permissionMode ?? 'default';
    if (!(PERMISSION_MODES as readonly unknown[]).includes(mode)) {
      throw new HttpError(400, `permissionMode must be one of ${PERMISSION_MODES.join(', ')}`);
    }
    const id = randomUUID();
    await mkdir(join(workspaceRoot, id), { recursive: true });
    // The first event creates the session in the store; a permission mode change is stored too.
    await host.setPermissionMode(id, mode as PermissionMode);
    return id;
  }

  /** Refuses an id the store does not know (the host would start a new session under it). */
  async function known(id: string): Promise<string> {
    if (host.live().includes(id)) return id;
    const exists = await store.entries(id, { limit: 1 }).then(
      () => true,
      (error: unknown) => {
        if ((error as { code?: unknown }).code === 'SESSION_NOT_FOUND') return false;
        throw error;
      },
    );
    if (!exists) throw new HttpError(404, `no agent '${id}'`);
    return id;
  }

  /** Ids of a session's tool calls waiting for `approve` or `deny`. */
  async function pendingApprovals(id: string): Promise<string[]> {
    const agent = await host.agent(id);
    return agent.context.toolRuns
      .filter((run) => run.status === 'awaitingApproval')
      .map((run) => run.call.id);
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter((part) => part !== '');
    const method = request.method ?? 'GET';
    if (parts[0] !== 'agents') throw new HttpError(404, `no route ${method} ${url.pathname}`);
    const [, id, action, callId] = parts;

    if (id === undefined && method === 'POST') {
      const created = await createSession(await readJson(request));
      return sendJson(response, 201, { id: created, workspace: join(workspaceRoot, created) });
    }
    if (id === undefined) throw new HttpError(404, `no route ${method} ${url.pathname}`);
    await known(id);

    if (action === undefined && method === 'GET') {
      const agent = await host.agent(id);
      return sendJson(response, 200, {
        id,
        state: agent.state,
        messages: agent.context.messages.length,
        pendingApprovals: await pendingApprovals(id),
        pendingQuestions: agent.questions(),
      });
    }
    if (action === undefined && method === 'DELETE') {
      const agent = await host.agent(id);
      await agent.shutdown({ endSession: true });
      await host.release(id);
      await store.delete(id);
      eventsOf(id).close({ state: agent.state });
      logs.delete(id);
      response.writeHead(204).end();
      return;
    }
    if (action === 'events' && method === 'GET') {
      const lastEventId = Number(request.headers['last-event-id'] ?? 0);
      eventsOf(id).subscribe(response, Number.isFinite(lastEventId) ? lastEventId : 0);
      // Watching a session loads it: a resumed one says again what it waits for.
      await host.agent(id);
      return;
    }
    if (action === 'messages' && method === 'POST') {
      const { text } = await readJson(request);
      if (typeof text !== 'string' || text === '') {
        throw new HttpError(400, 'send { "text": "…" } with a non-empty text');
      }
      const busy = (await host.agent(id)).state !== 'WaitingForUserInput';
      await host.send(id, text);
      return sendJson(response, 202, { queued: busy });
    }
    if (action === 'approvals' && callId !== undefined && method === 'POST') {
      const { decision, remember, reason, input } = await readJson(request);
      const approval = approvalOf(decision, reason, input);
      if (!(await pendingApprovals(id)).includes(callId)) {
        throw new HttpError(409, `tool call '${callId}' is not waiting for approval`);
      }
      const choice = { remember: remember === true };
      if (approval.decision === 'allow') {
        await host.approve(id, callId, { ...choice, ...approval.extra });
      } else {
        await host.deny(id, callId, { ...choice, ...approval.extra });
      }
      return sendJson(response, 202, { decision });
    }
    if (action === 'answers' && callId !== undefined && method === 'POST') {
      const body = await readJson(request);
      const asked = (await host.agent(id)).questions().find((open) => open.callId === callId);
      if (asked === undefined) {
        throw new HttpError(409, `tool call '${callId}' is not waiting for answers`);
      }
      await host.answer(id, callId, answersOf(body.answers, asked.questions));
      return sendJson(response, 202, { callId });
    }
    if (action === 'compact' && method === 'POST') {
      const { instructions } = await readJson(request);
      if (instructions !== undefined && typeof instructions !== 'string') {
        throw new HttpError(400, 'send { "instructions": "…" } with a string, or no instructions');
      }
      // Answered once it ended: a compaction takes one model call.
      const outcome = await host.compact(id, instructions).catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== 'EVENT_NOT_ACCEPTED') throw error;
        throw new HttpError(409, 'the agent compacts between turns: wait for the turn to end');
      });
      return sendJson(response, 200, outcome);
    }
    if (action === 'interrupt' && method === 'POST') {
      await host.interrupt(id);
      return sendJson(response, 202, { state: (await host.agent(id)).state });
    }
    throw new HttpError(404, `no route ${method} ${url.pathname}`);
  }

  const server = createServer(routeErrorsToAnswers(route));

  return {
    server,
    listen: (port = 0, host = '127.0.0.1') => listen(server, port, host),
    async close() {
      // Event streams end with the connections; clients reconnect to the next run.
      await host.close();
      await closeServer(server);
    },
  };
}
