/**
 * One hosted agent: the agent itself, its own workspace, and a numbered log of what it did that
 * Server-Sent-Events clients read (and re-read from `Last-Event-ID` after a reconnect).
 */
import type { ServerResponse } from 'node:http';
import type { Agent, AgentNotificationName } from 'agent-statechart';

/**
 * One entry of the event log, sent to clients as an SSE event named `type`.
 *
 * @example
 * const event: SessionEvent = { id: 3, type: 'text', data: { text: 'Hello' } };
 */
export interface SessionEvent {
  id: number;
  type: AgentNotificationName | 'turnEnd' | 'closed';
  data: unknown;
}

/** Notifications forwarded to clients. (`action` is left out: `turnEnd` says what matters.) */
const FORWARDED: AgentNotificationName[] = [
  'state',
  'text',
  'toolStart',
  'toolEnd',
  'approvalRequest',
  'retry',
  'error',
  'commit',
  'diagnostic',
];

/** Enough history for a reconnecting client; older events are dropped. */
const LOG_LIMIT = 2_000;

/**
 * An agent hosted by the service, with its event log and its connected SSE clients.
 *
 * @example
 * const session = new AgentSession('a1', createAgent({ workspace }), workspace);
 * session.subscribe(response, 0);
 */
export class AgentSession {
  readonly id: string;
  readonly agent: Agent;
  readonly workspace: string;
  readonly #log: SessionEvent[] = [];
  readonly #clients = new Set<ServerResponse>();
  #nextId = 1;
  #closed = false;

  constructor(id: string, agent: Agent, workspace: string) {
    this.id = id;
    this.agent = agent;
    this.workspace = workspace;
    for (const name of FORWARDED) {
      agent.on(name, (payload) => this.#record(name, payload));
    }
    // The chart emits `WaitForInput` when a turn is over and no queued input follows.
    agent.on('action', (action) => {
      if (action.type === 'WaitForInput') this.#record('turnEnd', { state: agent.state });
    });
  }

  /** Ids of the tool calls waiting for `approve` or `deny`. */
  get pendingApprovals(): string[] {
    return this.agent.context.toolRuns
      .filter((run) => run.status === 'awaitingApproval')
      .map((run) => run.call.id);
  }

  /**
   * Streams the log to `response` as Server-Sent Events: first what came after `lastEventId`,
   * then every new event, until the client goes away or the agent shuts down.
   *
   * @example
   * session.subscribe(response, Number(request.headers['last-event-id'] ?? 0));
   */
  subscribe(response: ServerResponse, lastEventId: number): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    // Send the headers now: a client waits for them before it reads any event.
    response.flushHeaders();
    for (const event of this.#log) if (event.id > lastEventId) write(response, event);
    if (this.#closed) {
      response.end();
      return;
    }
    this.#clients.add(response);
    response.on('close', () => this.#clients.delete(response));
  }

  /**
   * Shuts the agent down (answering open tool calls so the transcript stays valid), tells the
   * clients, and ends their streams.
   *
   * @example
   * await session.close();
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.agent.shutdown();
    this.#record('closed', { state: this.agent.state });
    this.#closed = true;
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  #record(type: SessionEvent['type'], data: unknown): void {
    const event: SessionEvent = { id: this.#nextId++, type, data };
    this.#log.push(event);
    if (this.#log.length > LOG_LIMIT) this.#log.shift();
    for (const client of this.#clients) write(client, event);
  }
}

function write(response: ServerResponse, event: SessionEvent): void {
  response.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
}
