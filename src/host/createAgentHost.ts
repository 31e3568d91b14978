/**
 * A host for many durable sessions in one service: a session is loaded on its first event, kept
 * live while it is in use, and dropped from memory once it has been idle for a while (it lives in
 * the store, and its next event loads it again). Events for one session are handled in order.
 */
import { createBuiltinTools, type Tool } from '../actors/index.js';
import {
  type Agent,
  type AgentNotificationName,
  type AgentNotifications,
  type CompactionOutcome,
  createAgent,
  type CreateAgentOptions,
} from '../agent/index.js';
import {
  AgentStatechartError,
  atRest,
  errorMessage,
  type Message,
  type PermissionMode,
  type UserAnswers,
} from '../machine/index.js';
import { connectMcpServers, McpServers } from '../mcp/index.js';
import type { SessionStore } from '../persistence/index.js';

/**
 * Options of {@link createAgentHost}: how every session's agent is made (as for `createAgent`),
 * the store they live in, and how long an idle one stays in memory.
 *
 * @example
 * const options: AgentHostOptions = { store, workspace: '/srv/repo', idleMs: 60_000 };
 */
export interface AgentHostOptions extends Omit<
  CreateAgentOptions,
  'store' | 'sessionId' | 'sessionMetadata' | 'messages'
> {
  store: SessionStore;
  /** How long a session may be idle before it leaves memory. Default 5 minutes. */
  idleMs?: number;
  /**
   * Options of one session's agent over the shared ones, asked each time the session is loaded:
   * its own workspace, for example. They must be the same at every load (the store keeps what
   * came from outside the chart, not how the agent was configured).
   *
   * @example
   * createAgentHost({ store, sessionOptions: (sessionId) => ({ workspace: join(root, sessionId) }) });
   */
  sessionOptions?: (
    sessionId: string,
  ) => Omit<CreateAgentOptions, 'store' | 'sessionId' | 'sessionMetadata' | 'messages'>;
}

/**
 * A notification of one of the host's sessions: the agent's payload, with the session's id.
 *
 * @example
 * host.on('text', ({ sessionId, text }) => streams.get(sessionId)?.write(text));
 */
export type HostNotification<Name extends AgentNotificationName> = AgentNotifications[Name] & {
  sessionId: string;
};

/**
 * The host's handle. Every method that takes a session loads it first if it is not in memory;
 * `send` resolves once the input is stored, so a service can acknowledge it.
 *
 * @example
 * const host = createAgentHost({ store: createSqliteSessionStore({ path: 'sessions.db' }) });
 * host.on('text', ({ sessionId, text }) => console.log(sessionId, text));
 * await host.send('alice-1', 'Summarise README.md');
 */
export interface AgentHost {
  /**
   * Sends the user's input to a session (queued if a turn is running); resolves once stored.
   * Rejects if it could not be stored: `SESSION_FENCED` when another process opened the session
   * since (this host lets its agent go; the session's next event opens it here again), or
   * `STORE_FAILED`.
   */
  send(sessionId: string, input: string | Message): Promise<void>;
  /** Answers an approval request of a session (see `Agent.approve`: `remember`, `input`). */
  approve(
    sessionId: string,
    callId: string,
    options?: { remember?: boolean; input?: Record<string, unknown> },
  ): Promise<void>;
  /** Refuses an approval request of a session (see `Agent.deny`: `remember`, `reason`). */
  deny(
    sessionId: string,
    callId: string,
    options?: { remember?: boolean; reason?: string },
  ): Promise<void>;
  /**
   * Answers the questions of a session's `ask_user` call (a `question` notification; see
   * `Agent.answer`): one answer per question, in order. Resolves once the answer is stored. An
   * answer the session does not take changes nothing and is a `diagnostic` notification, as on
   * the agent.
   *
   * @example
   * host.on('question', ({ sessionId, callId, questions }) => ask(sessionId, callId, questions));
   * await host.answer('alice-1', 'toolu_01', ['SQLite', ['Search', 'Export']]);
   */
  answer(sessionId: string, callId: string, answers: UserAnswers): Promise<void>;
  /** Interrupts a session's running turn (or its compaction). */
  interrupt(sessionId: string): Promise<void>;
  /**
   * Compacts a session's transcript now (see `Agent.compact`): resolves with how it ended, once
   * what it recorded is stored; rejects with `EVENT_NOT_ACCEPTED` when the session is not idle.
   * Other events for the session (an interrupt among them) are taken meanwhile.
   *
   * @example
   * const outcome = await host.compact('alice-1', 'Keep the open questions.');
   * if (outcome.status === 'skipped') console.log(outcome.reason);
   */
  compact(sessionId: string, instructions?: string): Promise<CompactionOutcome>;
  /** Changes a session's permission mode. */
  setPermissionMode(sessionId: string, mode: PermissionMode): Promise<void>;
  /** The session's live agent, loading it if needed. */
  agent(sessionId: string): Promise<Agent>;
  /** Listens to a notification of every session; returns the function that stops listening. */
  on<Name extends AgentNotificationName>(
    name: Name,
    listener: (payload: HostNotification<Name>) => void,
  ): () => void;
  /** The ids of the sessions in memory now. */
  live(): string[];
  /** Drops a session from memory now (once its current work is stored); it stays in the store. */
  release(sessionId: string): Promise<void>;
  /** Drops every session from memory and stops the host (the store stays open: close it after). */
  close(): Promise<void>;
}

interface LiveSession {
  agent: Agent;
  /** Notification forwarders, by name. */
  forwarding: Map<AgentNotificationName, () => void>;
  idleTimer: NodeJS.Timeout | undefined;
  /** The session's turn to be worked on: loading, handling an event, leaving memory. */
  lane: Promise<unknown>;
}

/**
 * Creates a host of durable sessions.
 *
 * @example
 * const store = createSqliteSessionStore({ path: '.agent-statechart/sessions.db' });
 * const host = createAgentHost({ store, workspace: process.cwd(), idleMs: 60_000 });
 * await host.send('alice-1', 'hello');
 * await (await host.agent('alice-1')).waitUntilIdle();
 * await host.close();
 * await store.close();
 */
export function createAgentHost(options: AgentHostOptions): AgentHost {
  const { store, idleMs = 5 * 60_000, sessionOptions, ...agentOptions } = options;
  if (!Number.isFinite(idleMs) || idleMs < 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `idleMs must be a number of milliseconds; got ${String(idleMs)}`,
    );
  }
  const sessions = new Map<string, LiveSession>();
  // The built-in tools are made once for all sessions: making them probes the OS sandbox, a
  // process start each time, and they hold nothing of a session (each call names its workspace).
  let builtins: Tool[] | undefined;
  // MCP servers given as configs are connected once, on the first session, and shared by all:
  // one process or connection per server, not one per session.
  let sharedMcp: Promise<McpServers> | undefined;
  const mcpServersOf = (own: Partial<AgentHostOptions> | undefined) => {
    if (own?.mcpServers !== undefined) return own.mcpServers;
    const given = agentOptions.mcpServers;
    if (given === undefined || given instanceof Promise || given instanceof McpServers)
      return given;
    return (sharedMcp ??= connectMcpServers(given, {
      cwd: agentOptions.workspace ?? process.cwd(),
    }));
  };
  const listeners = new Map<AgentNotificationName, Set<(payload: never) => void>>();
  let closed = false;

  const forward = (sessionId: string, live: LiveSession, name: AgentNotificationName) => {
    if (live.forwarding.has(name)) return;
    const stop = live.agent.on(name, (payload) => {
      for (const listener of listeners.get(name) ?? []) {
        (listener as (payload: HostNotification<typeof name>) => void)({ ...payload, sessionId });
      }
    });
    live.forwarding.set(name, stop);
  };

  const isIdle = (agent: Agent): boolean => {
    const snapshot = agent.actor.getSnapshot();
    if (snapshot.status !== 'active') return true;
    return atRest(snapshot.value, snapshot.context);
  };

  const scheduleRelease = (sessionId: string, live: LiveSession) => {
    clearTimeout(live.idleTimer);
    live.idleTimer = setTimeout(() => {
      if (sessions.get(sessionId) !== live) return;
      if (!isIdle(live.agent)) return scheduleRelease(sessionId, live);
      void release(sessionId);
    }, idleMs);
    live.idleTimer.unref();
  };

  const load = (sessionId: string): LiveSession => {
    let live = sessions.get(sessionId);
    if (live !== undefined) return live;
    const own = sessionOptions?.(sessionId);
    const tools = own?.tools ?? agentOptions.tools ?? (builtins ??= createBuiltinTools());
    const mcpServers = mcpServersOf(own);
    const agent = createAgent({
      ...agentOptions,
      ...own,
      tools,
      store,
      sessionId,
      ...(mcpServers === undefined ? {} : { mcpServers }),
    });
    live = { agent, forwarding: new Map(), idleTimer: undefined, lane: agent.ready };
    sessions.set(sessionId, live);
    for (const name of listeners.keys()) forward(sessionId, live, name);
    const loaded = live;
    agent.ready.then(
      () => {
        agent.actor.subscribe({
          // Every change of state restarts the idle clock.
          next: () => scheduleRelease(sessionId, loaded),
          // An agent that stopped by itself (its session was claimed elsewhere, or its store
          // failed) is let go: the session's next event opens it again from the store.
          complete: () => {
            if (sessions.get(sessionId) === loaded) void release(sessionId);
          },
        });
        scheduleRelease(sessionId, loaded);
      },
      () => {
        // The session could not be opened: forget it, so the next event tries again.
        if (sessions.get(sessionId) === loaded) sessions.delete(sessionId);
      },
    );
    return live;
  };

  /** Runs `work` on the session's agent in the session's own order. */
  const withAgent = async <T>(
    sessionId: string,
    work: (agent: Agent) => Promise<T> | T,
  ): Promise<T> => {
    if (closed) throw new AgentStatechartError('HOST_CLOSED', 'the agent host is closed');
    const live = load(sessionId);
    const result = live.lane.then(async () => {
      await live.agent.ready;
      return work(live.agent);
    });
    live.lane = result.catch(() => undefined);
    return result;
  };

  const release = async (sessionId: string): Promise<void> => {
    const live = sessions.get(sessionId);
    if (live === undefined) return;
    sessions.delete(sessionId);
    clearTimeout(live.idleTimer);
    await live.lane;
    for (const stop of live.forwarding.values()) stop();
    await live.agent.shutdown({ drain: false }).catch((error: unknown) => {
      for (const listener of listeners.get('error') ?? []) {
        (listener as (payload: HostNotification<'error'>) => void)({
          message: `session ${sessionId} did not stop cleanly: ${errorMessage(error)}`,
          source: 'agent',
          sessionId,
        });
      }
    });
  };

  return {
    send: (sessionId, input) =>
      withAgent(sessionId, async (agent) => {
        agent.send(input);
        await agent.recorded();
      }),
    approve: (sessionId, callId, approval) =>
      withAgent(sessionId, (agent) => agent.approve(callId, approval)),
    deny: (sessionId, callId, denial) =>
      withAgent(sessionId, (agent) => agent.deny(callId, denial)),
    answer: (sessionId, callId, answers) =>
      withAgent(sessionId, async (agent) => {
        agent.answer(callId, answers);
        await agent.recorded();
      }),
    interrupt: (sessionId) => withAgent(sessionId, (agent) => agent.interrupt()),
    // The session's lane is held only while the compaction is asked for, not until it ends: an
    // interrupt must reach it.
    compact: async (sessionId, instructions) => {
      const asked = await withAgent(sessionId, (agent) => {
        const ended = agent.compact(instructions);
        // Awaited below, once the lane lets go: a refusal meanwhile is not unhandled.
        ended.catch(() => undefined);
        return { agent, ended };
      });
      const outcome = await asked.ended;
      await asked.agent.recorded();
      return outcome;
    },
    setPermissionMode: (sessionId, mode) =>
      withAgent(sessionId, (agent) => agent.setPermissionMode(mode)),
    agent: (sessionId) => withAgent(sessionId, (agent) => agent),
    on(name, listener) {
      let set = listeners.get(name);
      if (set === undefined) {
        set = new Set();
        listeners.set(name, set);
      }
      set.add(listener);
      for (const [sessionId, live] of sessions) forward(sessionId, live, name);
      const own = set;
      return () => own.delete(listener);
    },
    live: () => [...sessions.keys()],
    release,
    async close() {
      closed = true;
      await Promise.all([...sessions.keys()].map((sessionId) => release(sessionId)));
      await sharedMcp?.then(
        (servers) => servers.close(),
        () => undefined,
      );
    },
  };
}
