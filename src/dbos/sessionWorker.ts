/**
 * A worker process of a service that drives many sessions on DBOS Transact: any number of them
 * share one PostgreSQL, each session is driven by one of them at a time (a queue partitioned by
 * session id, one workflow at a time per partition), and when one dies the others take its work
 * over without a person.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type Anthropic from '@anthropic-ai/sdk';
import type { DBOSClient as DBOSClientType } from '@dbos-inc/dbos-sdk';
import {
  type LlmTransport,
  type AgentHooks,
  hookSwitches,
  type ToolRegistry,
} from '../actors/index.js';
import {
  createPostgresSessionStore,
  importOptionalPeer,
  openPostgresPool,
  type SessionCore,
} from '../persistence/index.js';
import {
  type AgentConfig,
  AgentStatechartError,
  type CompletedToolInfo,
  DEFAULT_SUBAGENT_DEPTH,
  resolveConfig,
} from '../machine/index.js';
import type { McpServerConfig, McpServers } from '../mcp/index.js';
import { SessionTracers, type TelemetryOptions, telemetryOptions } from '../telemetry/index.js';
import {
  createSessionDriver,
  DRIVE_STREAM,
  type DriverEngine,
  type DriveStreamValue,
} from './driveSession.js';
import {
  beat,
  livenessName,
  reap,
  registerExecutor,
  type Recovery,
  type ReaperEngine,
} from './executorLiveness.js';
import {
  DRIVE_APP_VERSION,
  DRIVE_WORKFLOW,
  enqueueDrive,
  SESSION_QUEUE,
  sendInput,
  sessionClient,
  type SessionClient,
  turnSource,
} from './sessionClient.js';
import { followTurn } from './followTurn.js';
import { openDrivenSession } from './subagentDrives.js';
import { withIdleTransactionTimeout } from './idleTransactionTimeout.js';
import { createSessionInbox } from './sessionInbox.js';
import { workerTools } from './workerTools.js';

/** How often a worker polls the session queue. */
const QUEUE_POLL_MS = 100;

/**
 * Options of {@link startSessionWorker}.
 *
 * @example
 * const options: SessionWorkerOptions = { connectionString, agent: { tools: registry.specs() }, tools: registry, workspace: '/srv/ws', llm };
 */
export interface SessionWorkerOptions {
  /** The PostgreSQL holding the sessions and DBOS's own tables. */
  connectionString: string;
  /** The sessions' schema (default `agent_statechart`); DBOS keeps its tables in its own. */
  schema?: string;
  /** DBOS's application name; every worker of one service uses the same. Default `agent-statechart`. */
  applicationName?: string;
  /**
   * The chart's configuration (tools' specs, permissions, model, …), the same for every worker
   * of a service. `askUser: true` offers the model the built-in `ask_user` tool: a drive that
   * reaches its questions streams them (`question`) and rests with them in its result's
   * `awaitingAnswer`, and a `UserAnswer` sent to the session, through any worker or client,
   * answers them. With `agents`, the model hands tasks to subagents (the built-in `task` tool):
   * each runs in a session of its own, `subagentSessionId(sessionId, callId)`, driven by its own
   * drives on any worker, while the session that gave the task rests until it has the answer
   * (see the result's `subagents`). A config the chart refuses is refused here, before anything
   * opens.
   */
  agent: AgentConfig;
  /**
   * How many levels of subagents may run below a session (with `agent.agents`): with 2, the
   * default, a subagent may hand tasks to subagents of its own, which may not.
   */
  maxSubagentDepth?: number;
  /** The tools the chart's calls run. */
  tools: ToolRegistry;
  /**
   * MCP servers whose tools the drives may call too (see `createAgent`'s option of the same
   * name), connected as the worker starts and closed when it stops — or servers connected with
   * `connectMcpServers`, which the caller closes. Their tools join `agent.tools` and `tools` as
   * `mcp__<server>__<tool>`; every worker of a service should be given the same servers.
   */
  mcpServers?: Record<string, McpServerConfig> | McpServers;
  /** The directory tools work in, or the one of each session (made by the caller). */
  workspace: string | ((sessionId: string) => string);
  /**
   * The model's client, built with `maxRetries: 0` (the chart retries), or a transport such as
   * `createLeanTransport(options)`.
   */
  llm: Anthropic | LlmTransport;
  /** Sessions this worker drives at once. Default 10. */
  concurrency?: number;
  /** How long a silent worker keeps its sessions before the others take them over. Default 3 s. */
  leaseMs?: number;
  /**
   * Called when this worker learns it was declared dead, once it has stopped taking work (DBOS is
   * shut down; the store's connections stay open until `stop()`); default: exit with status 75.
   */
  onDeclaredDead?: () => void;
  /** Called after each recovery this worker's reaper made. */
  onRecovery?: (recovery: Recovery) => void;
  /** Told when a write of this worker was refused because another execution took the session. */
  onFenced?: (sessionId: string) => void;
  /** DBOS's log level. Default `error`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Runs the post-tools hook; resolves whether it acted. */
  postToolsHook?: (completedTools: CompletedToolInfo[]) => Promise<boolean>;
  /**
   * Hooks, as `createAgent` takes them (see `CreateAgentOptions.hooks`): `userPromptSubmit` on
   * each prompt, `preToolUse` and `postToolUse` on each call, `preCompact` before a compaction,
   * `stop` when a turn would end. A
   * drive runs each as a step of its own, and records its answer; the worker that takes a
   * session over asks a hook again only about what it had not decided. Every worker of a
   * service should be given the same hooks.
   */
  hooks?: AgentHooks;
  /** How long one hook may take, in milliseconds. Default 60 000. */
  hookTimeoutMs?: number;
  /**
   * Trace the sessions this worker drives with OpenTelemetry (see `createAgent`'s option of the
   * same name). A turn's trace id comes from its session, so a turn that fails over to another
   * worker goes on in the same trace.
   */
  telemetry?: boolean | TelemetryOptions;
}

/**
 * A running worker: a {@link SessionClient} too, over the worker's own connections.
 *
 * @example
 * const worker = await startSessionWorker(options);
 * await worker.send('alice-1', { type: 'UserInput', message: { role: 'user', content: 'hi' } });
 */
export interface SessionWorker extends SessionClient {
  readonly executorId: string;
  /**
   * Opens a session to read it (`core.state`, `core.context`), as this worker's chart sees it (a
   * subagent's session with the config its link makes); feeding it events is the drives' job.
   */
  open(sessionId: string): Promise<SessionCore>;
  /** Stops taking work, and closes DBOS and the connections. */
  stop(): Promise<void>;
}

/**
 * Starts this process's worker: DBOS under a fresh executor id, the drive workflow and the session
 * queue, the heartbeat and the reaper. One worker per process (DBOS is one per process).
 *
 * @example
 * const worker = await startSessionWorker({ connectionString, agent, tools, workspace, llm });
 */
export async function startSessionWorker(options: SessionWorkerOptions): Promise<SessionWorker> {
  const { DBOS, DBOSClient } = await importOptionalPeer(
    '@dbos-inc/dbos-sdk',
    'startSessionWorker',
    () => import('@dbos-inc/dbos-sdk'),
  );
  // The chart waits for the hooks the worker is given; refused before anything opens when they
  // are not hooks.
  const switches = hookSwitches(options.hooks, options.hookTimeoutMs);
  const agent = switches === undefined ? options.agent : { ...options.agent, hooks: switches };
  const maxSubagentDepth = options.maxSubagentDepth ?? DEFAULT_SUBAGENT_DEPTH;
  if (!Number.isInteger(maxSubagentDepth) || maxSubagentDepth < 1) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `maxSubagentDepth must be a whole number of at least 1; got ${String(options.maxSubagentDepth)}`,
    );
  }
  // A config the chart refuses (a subagent's spec naming a tool the worker lacks, say) is
  // refused before anything opens, not at each session's first step. MCP servers' tools join it
  // once they are connected, and are checked then.
  if (options.mcpServers === undefined) resolveConfig(agent);
  const schema = options.schema ?? 'agent_statechart';
  const applicationName = options.applicationName ?? 'agent-statechart';
  const leaseMs = options.leaseMs ?? 3_000;
  // A fresh id per process: a dead id never comes back, so recovering its work cannot race with
  // its own restart.
  const executorId = `${hostname().slice(0, 16)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // A worker paused in the middle of a transaction holds its session's row lock; the server ends
  // such a transaction once it has been idle for a lease, so the session's new driver can go on.
  const leased = withIdleTransactionTimeout(options.connectionString, leaseMs);
  const pool = openPostgresPool(leased, 10);
  const store = createPostgresSessionStore({ pool, schema });
  const inbox = createSessionInbox(pool, schema);
  // Migrates the schema before anything else touches it.
  await store.list({ limit: 1 });
  const liveness = await openLivenessConnection(options.connectionString, executorId);
  await registerExecutor(liveness, schema, executorId);

  DBOS.setConfig({
    name: applicationName,
    systemDatabaseUrl: leased,
    executorID: executorId,
    applicationVersion: DRIVE_APP_VERSION,
    logLevel: options.logLevel ?? 'error',
  });
  const engine = DBOS as unknown as DriverEngine & ReaperEngine;
  const telemetry = telemetryOptions(options.telemetry);
  const tools = await workerTools(
    agent,
    options.tools,
    options.mcpServers,
    typeof options.workspace === 'string' ? options.workspace : process.cwd(),
  );
  if (options.mcpServers !== undefined) {
    try {
      resolveConfig(tools.config());
    } catch (error) {
      await tools.close();
      throw error;
    }
  }
  // The client a drive starts its subagents' drives with and wakes its parent's with; made as
  // soon as DBOS has launched, before the queue hands this worker any drive.
  const launched: { dbos?: DBOSClientType } = {};
  const dbosOf = (): DBOSClientType => {
    if (launched.dbos === undefined) {
      throw new AgentStatechartError('STORE_FAILED', 'the worker’s DBOS client is not open yet');
    }
    return launched.dbos;
  };
  DBOS.registerWorkflow(
    createSessionDriver({
      engine,
      store,
      inbox,
      // Read at every step: an MCP server's changed tools reach the next one.
      get config() {
        return tools.config();
      },
      tools: tools.registry,
      workspace: options.workspace,
      llm: options.llm,
      ...(options.postToolsHook ? { postToolsHook: options.postToolsHook } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      ...(options.hookTimeoutMs === undefined ? {} : { hookTimeoutMs: options.hookTimeoutMs }),
      ...(options.onFenced ? { onFenced: options.onFenced } : {}),
      ...(telemetry === undefined ? {} : { tracers: new SessionTracers(telemetry) }),
      subagents: {
        send: (sessionId, event, sendOptions) =>
          sendInput(inbox, dbosOf(), sessionId, event, sendOptions),
        answer: (sessionId, event, idempotencyKey) =>
          sendInput(inbox, dbosOf(), sessionId, event, { idempotencyKey, taskAnswer: true }),
        wake: (sessionId, workflowId) => enqueueDrive(dbosOf(), sessionId, workflowId),
      },
      maxSubagentDepth,
    }),
    { name: DRIVE_WORKFLOW },
  );
  await DBOS.launch();
  const dbosClient = await DBOSClient.create({ systemDatabaseUrl: leased, applicationName });
  launched.dbos = dbosClient;
  await DBOS.registerQueue(SESSION_QUEUE, {
    partitionConcurrency: 1,
    workerConcurrency: options.concurrency ?? 10,
    minPollingIntervalMs: QUEUE_POLL_MS,
  });

  let stopped = false;
  // DBOS 5 stops a process's queue only by shutting down: its first move is to stop the queue
  // and wait for a poll in flight, then it lets go of its connections. Once, whoever asks first.
  let dbosShutdown: Promise<void> | undefined;
  const shutDownDbos = () => (dbosShutdown ??= DBOS.shutdown());
  const onDeclaredDead = options.onDeclaredDead ?? (() => process.exit(75));
  const every = (ms: number, work: () => Promise<void>) => {
    let running = false;
    const timer = setInterval(() => {
      if (stopped || running) return;
      running = true;
      // A failed beat or reap is tried again next round; the lease covers a few of them.
      void work()
        .catch(() => undefined)
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [
    every(Math.max(50, leaseMs / 6), async () => {
      if (!(await beat(liveness, schema, executorId)) && !stopped) {
        stopped = true;
        // Dequeue nothing more: a drive taken now could not claim its session, and would wait
        // for a reaper to hand it on. A shutdown that hangs does not keep the news from the host.
        await Promise.race([
          shutDownDbos().catch(() => undefined),
          sleep(leaseMs, undefined, { ref: false }),
        ]);
        onDeclaredDead();
      }
    }),
    every(Math.max(100, leaseMs / 4), async () => {
      const recovery = await reap({
        pool,
        schema,
        engine,
        queueName: SESSION_QUEUE,
        self: executorId,
        leaseMs,
        pollMs: QUEUE_POLL_MS,
      });
      if (recovery) options.onRecovery?.(recovery);
    }),
  ];

  const client = sessionClient(store, inbox, dbosClient, pool);
  // Inside a worker, DBOS wakes stream readers through LISTEN/NOTIFY instead of polling.
  const events = (workflowId: string, offset = 0) =>
    DBOS.readStream<DriveStreamValue>(workflowId, DRIVE_STREAM, { offset });
  return {
    ...client,
    events,
    followTurn: (workflowId) => followTurn(turnSource(store, dbosClient, events), workflowId),
    executorId,
    open: (sessionId) => openDrivenSession(store, sessionId, tools.config(), maxSubagentDepth),
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await shutDownDbos();
      await liveness.end().catch(() => undefined);
      await client.close();
      await tools.close();
    },
  };
}

async function openLivenessConnection(connectionString: string, executorId: string) {
  const pg = await importOptionalPeer('pg', 'startSessionWorker', () => import('pg'));
  const client = new pg.default.Client({
    connectionString,
    application_name: livenessName(executorId),
  });
  // Losing it is what the reaper watches for; the heartbeat reports trouble of our own.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
