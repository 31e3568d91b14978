/**
 * An agent as an MCP server: any MCP client (Claude Code, Claude Desktop, the MCP Inspector,
 * another agent) hands it a task with the `run_task` tool, follows its progress, and may cancel
 * it. The agents come from a factory the caller gives, so this layer never builds one itself.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import {
  AgentStatechartError,
  errorMessage,
  type ToolCall,
  type ToolOutcome,
} from '../machine/index.js';
import { PACKAGE_VERSION } from '../persistence/index.js';
import { loadMcpServerSdk, type McpServerSdk } from './loadMcpServerSdk.js';

/**
 * What the server needs of an agent: an `Agent` from `createAgent` is one. Only these members
 * are named, so a wrapper around an agent fits too.
 *
 * @example
 * const served: ServedAgent = createAgent({ workspace: '/srv/repo' });
 */
export interface ServedAgent {
  /** Resolves once the agent runs (a stored session is open); rejects if it cannot. */
  readonly ready: Promise<void>;
  /** Runs one turn and resolves with its answer (`Agent.run`). */
  run(message: string): Promise<unknown>;
  /** Cancels the current turn and keeps the agent. */
  interrupt(): void;
  /** Refuses a call that waits for approval. */
  deny(callId: string): void;
  /** Stops the agent. */
  shutdown(): Promise<void>;
  on(name: 'llmStart', listener: (payload: { attempt: number }) => void): () => void;
  on(name: 'toolStart', listener: (payload: { call: ToolCall }) => void): () => void;
  on(
    name: 'toolEnd',
    listener: (payload: { call: ToolCall; outcome: ToolOutcome }) => void,
  ): () => void;
  on(name: 'approvalRequest', listener: (payload: { call: ToolCall }) => void): () => void;
  on(name: 'retry', listener: (payload: { delayMs: number }) => void): () => void;
  on(name: 'error', listener: (payload: { message: string; source: string }) => void): () => void;
  on(
    name: 'diagnostic',
    listener: (payload: { code: string; message: string; event?: unknown }) => void,
  ): () => void;
}

/**
 * Options of {@link serveAgentOverMcp}.
 *
 * @example
 * const options: ServeAgentOverMcpOptions = {
 *   name: 'repo-agent',
 *   description: 'It knows the billing service in /srv/billing.',
 *   createAgent: () => createAgent({ workspace: '/srv/billing' }),
 * };
 */
export interface ServeAgentOverMcpOptions {
  /**
   * Makes the agent of one call (`session` undefined: it is shut down when the call ends) or of
   * one named session (called once per name; the agent is kept until `close()`, its calls taken
   * one at a time). To keep sessions across restarts, give the agent a store and the session's
   * name as its `sessionId`. Choose a permission mode the client needs no approvals in (see
   * {@link serveAgentOverMcp}).
   */
  createAgent: (session: string | undefined) => ServedAgent | Promise<ServedAgent>;
  /** The server's name, as clients show it. Default `agent-statechart`. */
  name?: string;
  /**
   * What this agent is for, put first in the `run_task` description the client's model reads:
   * "Knows the billing service; answers questions about it and fixes its bugs."
   */
  description?: string;
}

/**
 * An agent served over MCP: connect it to one or more transports; close it to shut every agent
 * it made down.
 *
 * @example
 * const server = serveAgentOverMcp({ createAgent: () => createAgent({ workspace: '.' }) });
 * await server.connect(new StdioServerTransport());
 * process.stdin.once('end', () => void server.close());
 */
export interface AgentMcpServer {
  /**
   * Serves one MCP connection over `transport` (stdio, Streamable HTTP, in memory). Call it once
   * per connection; every connection reaches the same sessions. Rejects with
   * `MISSING_PEER_DEPENDENCY` without `@modelcontextprotocol/sdk`, and with `HOST_CLOSED` after
   * `close()`.
   */
  connect(transport: McpTransport): Promise<void>;
  /**
   * Serves one MCP connection over standard input and output (or the streams given): what an
   * MCP client that starts the server as a process expects. Nothing else may write to the
   * output stream.
   */
  connectStdio(input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream): Promise<void>;
  /** The names of the sessions kept now. */
  sessions(): string[];
  /**
   * Closes every connection (a task running is interrupted) and shuts down every agent the
   * server made. Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * A transport of the MCP SDK (its `Transport`: `StdioServerTransport`,
 * `StreamableHTTPServerTransport`, `InMemoryTransport`, …), named here by the members the server
 * needs, so the package's declarations do not require the SDK's.
 *
 * @example
 * const transport: McpTransport = new StdioServerTransport();
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: never, options?: never): Promise<void>;
  close(): Promise<void>;
}

/** Session names: safe as a store's session id, in a path or in a log line. */
const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** What the SDK hands a tool's handler besides its input. */
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Serves an agent over MCP, with one tool, `run_task { prompt, session? }`: it runs one turn of
 * an agent and answers with the turn's final text (`agent.run`). A client that asks for progress
 * hears of each model call and each tool call as it starts and ends; a client that cancels the
 * call interrupts the agent's turn. A turn that fails (the model call given up, a limit, a
 * refusal, the agent stopped) answers `isError` with what went wrong. Without `session` each
 * call gets a fresh agent; with one, calls of the same name go to the same agent, in order.
 *
 * Approvals: a client calls a tool and waits for its answer, and nothing in MCP lets it answer a
 * question the agent asks on the way, so an agent waiting for approval would wait for good.
 * Give the agents a permission mode in which nothing needs approving for the work you expect
 * (`acceptEdits` for edits, `bypassPermissions` to run commands too, `plan` to only read); any
 * approval still requested is refused at once, and the answer tells the client which tool calls
 * were refused and why.
 *
 * Needs `@modelcontextprotocol/sdk`, loaded on the first `connect`.
 *
 * @example
 * import { createAgent, serveAgentOverMcp } from 'agent-statechart';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 *
 * const server = serveAgentOverMcp({
 *   name: 'repo-agent',
 *   createAgent: () =>
 *     createAgent({ workspace: '/srv/repo', permissions: { mode: 'acceptEdits' } }),
 * });
 * await server.connect(new StdioServerTransport());
 */
export function serveAgentOverMcp(options: ServeAgentOverMcpOptions): AgentMcpServer {
  checkOptions(options);
  const name = options.name ?? 'agent-statechart';
  const agents = new ServedAgents(options.createAgent);
  const connections = new Set<InstanceType<McpServerSdk['McpServer']>>();
  let closing: Promise<void> | undefined;

  const runTask = async (
    input: { prompt: string; session?: string | undefined },
    extra: CallExtra,
  ): Promise<CallToolResult> => {
    const progress = new Progress(extra);
    try {
      if (closing !== undefined) return failed('the server is closing; no task can start now');
      return input.session === undefined
        ? await agents.runOnce(input.prompt, extra.signal, progress)
        : await agents.runInSession(input.session, input.prompt, extra.signal, progress);
    } finally {
      // Every progress notification goes out before the answer that ends the call.
      await progress.flushed();
    }
  };

  return {
    async connectStdio(input, output) {
      const sdk = await loadMcpServerSdk();
      const stdio = new sdk.StdioServerTransport(
        input as ConstructorParameters<typeof sdk.StdioServerTransport>[0],
        output as ConstructorParameters<typeof sdk.StdioServerTransport>[1],
      );
      await this.connect(stdio);
    },
    async connect(given) {
      // The SDK's own type: the interface above only keeps it out of the package's declarations.
      const transport = given as unknown as Transport;
      if (closing !== undefined) throw closedServer();
      const sdk = await loadMcpServerSdk();
      if (closing !== undefined) throw closedServer();
      const server = new sdk.McpServer({ name, version: PACKAGE_VERSION });
      server.registerTool(
        'run_task',
        {
          title: `Run a task with ${name}`,
          description: runTaskDescription(name, options.description),
          inputSchema: {
            prompt: z
              .string()
              .min(1)
              .describe('The task, fully described: what to do, where, and what to answer with.'),
            session: z
              .string()
              .regex(SESSION_NAME, "1 to 64 letters, digits, '.', '_' or '-'")
              .optional()
              .describe(
                "Continue the session of this name (1 to 64 letters, digits, '.', '_' or '-'): its agent remembers the session's earlier tasks. Leave it out for a fresh agent.",
              ),
          },
          annotations: {
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: true,
          },
        },
        runTask,
      );
      connections.add(server);
      server.server.onclose = () => connections.delete(server);
      try {
        await server.connect(transport);
      } catch (error) {
        connections.delete(server);
        throw error;
      }
    },
    sessions: () => agents.sessionNames(),
    close() {
      closing ??= (async () => {
        // Closing a connection aborts the calls it is running, which interrupts their turns.
        await Promise.all([...connections].map((server) => server.close().catch(() => undefined)));
        await agents.close();
      })();
      return closing;
    },
  };
}

/** The options' types, checked where a JavaScript caller's mistake would otherwise surface late. */
function checkOptions(options: ServeAgentOverMcpOptions): void {
  if (typeof options?.createAgent !== 'function') {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'serveAgentOverMcp needs createAgent: a function that makes the agent of a call or a session',
    );
  }
  for (const key of ['name', 'description'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `serveAgentOverMcp's ${key} must be a non-empty string; got ${errorMessage(value)}`,
      );
    }
  }
}

/** What the client's model reads about `run_task`: when to use it and how to ask. */
function runTaskDescription(name: string, description: string | undefined): string {
  return [
    `Hands a task to ${name}, an AI coding agent with a workspace and tools of its own (it reads and edits files, and runs commands where its permissions allow), and answers with the agent's final reply once the task is done.`,
    ...(description === undefined ? [] : [description.trim()]),
    'The agent knows only what the prompt says: give the whole task, with the paths, names and constraints that matter, and say what the answer should contain.',
    'Without `session` every call gets a fresh agent that remembers nothing. With `session` (a name you choose), calls of the same name go to the same agent, which remembers the earlier tasks of that session; they run one at a time, in order.',
    'A task may take minutes: progress is reported when asked for, and cancelling the call interrupts the agent. Tool calls that would need a person to approve them are refused, and the answer says which.',
  ].join('\n\n');
}

/**
 * The agents the server made: one per call without a session, one per named session (kept until
 * the server closes), each shut down once.
 */
class ServedAgents {
  readonly #make: ServeAgentOverMcpOptions['createAgent'];
  readonly #sessions = new Map<string, Session>();
  /** Every agent made and not yet shut down. */
  readonly #live = new Set<Served>();
  /** The factory's calls not yet answered: close() waits for them, to shut their agents down. */
  readonly #making = new Set<Promise<unknown>>();
  #closed = false;

  constructor(make: ServeAgentOverMcpOptions['createAgent']) {
    this.#make = make;
  }

  sessionNames(): string[] {
    return [...this.#sessions.keys()];
  }

  /** One task on a fresh agent, shut down before the call is answered. */
  async runOnce(prompt: string, signal: AbortSignal, progress: Progress): Promise<CallToolResult> {
    const made = await this.#start(undefined).then(
      (served) => ({ served }),
      (error: unknown) => ({ error }),
    );
    if ('error' in made) return failed(`the agent could not start: ${errorMessage(made.error)}`);
    try {
      return await runTurn(made.served, prompt, signal, progress);
    } finally {
      await this.#retire(made.served);
    }
  }

  /** One task on the session's agent, after the session's earlier calls. */
  runInSession(
    name: string,
    prompt: string,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<CallToolResult> {
    let session = this.#sessions.get(name);
    if (session === undefined) {
      session = { served: this.#start(name), lane: Promise.resolve(), waiting: 0 };
      // Made once, whatever becomes of the calls: a failure is answered by the call it reaches.
      void session.served.catch(() => undefined);
      this.#sessions.set(name, session);
    } else if (session.waiting > 0) {
      progress.report(`waiting for the task running in session ${name}`);
    }
    const own = session;
    own.waiting++;
    const answer = own.lane.then(async (): Promise<CallToolResult> => {
      let served: Served;
      try {
        served = await own.served;
      } catch (error) {
        this.#forget(name, own);
        return failed(`the agent of session ${name} could not start: ${errorMessage(error)}`);
      }
      const result = await runTurn(served, prompt, signal, progress);
      // An agent that stopped takes no more tasks: the session's next call starts a new one.
      if (served.stopped) this.#forget(name, own);
      return result;
    });
    const answeredOrNot = () => {
      own.waiting--;
    };
    own.lane = answer.then(answeredOrNot, answeredOrNot);
    return answer;
  }

  /** Shuts every agent down; agents still being made are shut down once they are. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#making]);
    this.#sessions.clear();
    await Promise.all([...this.#live].map((served) => this.#retire(served)));
  }

  /** A new agent, ready to take a task. */
  async #start(session: string | undefined): Promise<Served> {
    if (this.#closed) throw closedServer();
    const making = Promise.resolve().then(() => this.#make(session));
    this.#making.add(making);
    let served: Served;
    try {
      served = new Served(await making);
    } finally {
      this.#making.delete(making);
    }
    this.#live.add(served);
    if (this.#closed) {
      await this.#retire(served);
      throw closedServer();
    }
    try {
      await served.agent.ready;
    } catch (error) {
      await this.#retire(served);
      throw error;
    }
    return served;
  }

  /** Drops a session whose agent failed or stopped, so its next call makes a new one. */
  #forget(name: string, session: Session): void {
    if (this.#sessions.get(name) !== session) return;
    this.#sessions.delete(name);
    void session.served.then(
      (served) => this.#retire(served),
      () => undefined,
    );
  }

  async #retire(served: Served): Promise<void> {
    await served.shutdown();
    this.#live.delete(served);
  }
}

/** What using a closed server gets. */
function closedServer(): AgentStatechartError {
  return new AgentStatechartError('HOST_CLOSED', 'the MCP server is closed');
}

/** A named session: its agent, and the calls lined up for it. */
interface Session {
  served: Promise<Served>;
  /** Settles when the session's last call so far has been answered. */
  lane: Promise<unknown>;
  /** Calls taken and not yet answered. */
  waiting: number;
}

/** An agent the server made, and what the call running on it hears of refused approvals. */
class Served {
  readonly agent: ServedAgent;
  /** Set while a call runs on the agent. */
  onRefused: ((call: ToolCall) => void) | undefined;
  /** The agent stopped or failed: it takes no more tasks. */
  stopped = false;
  #shutdown: Promise<void> | undefined;

  constructor(agent: ServedAgent) {
    this.agent = agent;
    // Why refuse rather than wait: the client waits for the tool's answer, and MCP gives it no
    // way to answer the agent's question meanwhile, so an approval request would never be
    // answered and the turn would hang. The refusal reaches the model as a denied tool call, and
    // the call's answer tells the client what was refused.
    agent.on('approvalRequest', ({ call }) => {
      // After the chart has finished taking the step that asks: the denial is its next event.
      queueMicrotask(() => agent.deny(call.id));
      this.onRefused?.(call);
    });
  }

  /** Shuts the agent down, once, whatever shutting down throws. */
  shutdown(): Promise<void> {
    this.stopped = true;
    this.#shutdown ??= this.agent.shutdown().catch(() => undefined);
    return this.#shutdown;
  }
}

/**
 * Runs one turn and answers the call with it; never throws. An abort of `signal` (the client
 * cancelled, or the connection closed) interrupts the turn.
 */
async function runTurn(
  served: Served,
  prompt: string,
  signal: AbortSignal,
  progress: Progress,
): Promise<CallToolResult> {
  if (signal.aborted) return cancelled();
  const { agent } = served;
  const failures: string[] = [];
  const refused: string[] = [];
  served.onRefused = (call) => {
    refused.push(call.name);
    progress.report(`${call.name} refused: it needs approval, which an MCP client cannot give`);
  };
  const stops = [
    ...followProgress(agent, progress),
    // The chart's errors end a turn (a model call given up, a limit, a refusal, a cut-off
    // response), as do the agent's own; a failed hook or a listener's error does not.
    agent.on('error', ({ message, source }) => {
      if (source === 'chart' || source === 'agent') failures.push(message);
    }),
    // The prompt itself not taken (the agent has stopped): the turn never ran.
    agent.on('diagnostic', ({ code, message, event }) => {
      if (isUserInput(event)) {
        failures.push(message);
        if (code === 'AGENT_STOPPED') served.stopped = true;
      }
    }),
  ];
  const interrupt = () => agent.interrupt();
  signal.addEventListener('abort', interrupt, { once: true });
  try {
    const answer = await agent.run(prompt);
    if (signal.aborted) return cancelled();
    const text = answerText(answer);
    if (failures.length > 0) return failed(failures.at(-1)!, text);
    return answered(text, refused);
  } catch (error) {
    if (signal.aborted) return cancelled();
    if (error instanceof AgentStatechartError && error.code === 'AGENT_FAILED') {
      served.stopped = true;
    }
    return failed(errorMessage(error));
  } finally {
    signal.removeEventListener('abort', interrupt);
    served.onRefused = undefined;
    for (const stop of stops) stop();
  }
}

/**
 * Reports the turn's model calls and tool calls as progress; returns the functions that stop
 * listening. Nothing is listened to when the client asked for no progress: following tool calls
 * to their end switches on the agent's microstep notifications.
 */
function followProgress(agent: ServedAgent, progress: Progress): Array<() => void> {
  if (!progress.wanted) return [];
  let modelCalls = 0;
  return [
    agent.on('llmStart', ({ attempt }) => {
      if (attempt === 1) modelCalls++;
      progress.report(
        attempt === 1 ? `model call ${modelCalls}` : `model call ${modelCalls}, attempt ${attempt}`,
      );
    }),
    agent.on('toolStart', ({ call }) => progress.report(`calling ${call.name}`)),
    agent.on('toolEnd', ({ call, outcome }) =>
      progress.report(`${call.name} ${outcome.status === 'success' ? 'done' : 'failed'}`),
    ),
    agent.on('retry', ({ delayMs }) =>
      progress.report(`the model call failed; retrying in ${Math.round(delayMs)} ms`),
    ),
  ];
}

function isUserInput(event: unknown): boolean {
  return (
    typeof event === 'object' &&
    event !== null &&
    (event as { type?: unknown }).type === 'UserInput'
  );
}

/** The turn's answer as text: its final text, or an `output` agent's answer as JSON. */
function answerText(answer: unknown): string {
  if (typeof answer === 'string') return answer;
  try {
    return JSON.stringify(answer, null, 2) ?? String(answer);
  } catch {
    return String(answer);
  }
}

function answered(text: string, refused: readonly string[]): CallToolResult {
  const content: CallToolResult['content'] = [
    {
      type: 'text',
      text: text === '' ? '(the agent ended the task without a final message)' : text,
    },
  ];
  if (refused.length > 0) {
    content.push({
      type: 'text',
      text: `Refused: ${[...new Set(refused)].join(', ')}. The agent's permission mode asks before these calls, and an MCP client cannot answer, so they were refused; serve the agent in a mode that allows them to let them run.`,
    });
  }
  return { content };
}

function failed(message: string, text = ''): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: `the task failed: ${message}` },
      ...(text === ''
        ? []
        : [{ type: 'text' as const, text: `What the agent said before it stopped:\n${text}` }]),
    ],
  };
}

function cancelled(): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: "the task was cancelled: the agent's turn was interrupted" }],
  };
}

/**
 * The call's progress notifications, numbered in order and sent one after the other; none when
 * the client did not ask for progress (it sent no progress token).
 */
class Progress {
  readonly #send: ((message: string, progress: number) => Promise<void>) | undefined;
  readonly #signal: AbortSignal;
  #count = 0;
  #sending: Promise<void> = Promise.resolve();

  constructor(extra: CallExtra) {
    this.#signal = extra.signal;
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      this.#send = (message, progress) =>
        extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, message },
        });
    }
  }

  /** Whether the client asked for progress. */
  get wanted(): boolean {
    return this.#send !== undefined;
  }

  report(message: string): void {
    const send = this.#send;
    // A cancelled call's progress has no one left to read it.
    if (send === undefined || this.#signal.aborted) return;
    const progress = ++this.#count;
    // A notification that cannot be sent (the connection went away) is dropped, never thrown.
    this.#sending = this.#sending.then(() => send(message, progress)).catch(() => undefined);
  }

  /** Resolves once every notification reported so far has been sent (or dropped). */
  flushed(): Promise<void> {
    return this.#sending;
  }
}
