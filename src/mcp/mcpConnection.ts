/**
 * One MCP server, kept connected: started (or reached) with a timeout, its tools listed and kept
 * current when it says they changed, reconnected with backoff when it goes away, closed once.
 * Nothing here throws into the agent: a server that fails is a state and a message.
 */
import { setImmediate } from 'node:timers/promises';
import { PACKAGE_VERSION } from '../persistence/index.js';
import { MAX_TIMEOUT_MS, type Tool, type ToolContext } from '../actors/index.js';
import type { McpSdk } from './loadMcpSdk.js';
import type { McpServerConfig } from './mcpServerConfig.js';
import { type InputValidator, mcpTool, type McpListedTool } from './mcpTool.js';
import { type McpCallResult, toToolAnswer } from './mcpToolResult.js';
import type { McpServerChange, McpServerState, McpServerStatus } from './mcpServerStatus.js';

/** What a connection is built with. */
export interface McpConnectionParts {
  name: string;
  config: McpServerConfig;
  sdk: McpSdk;
  /** Directory a stdio server starts in when its config names none. */
  cwd: string;
  validator: (schema: Record<string, unknown>) => InputValidator;
  onChange: (change: McpServerChange) => void;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** Reconnection waits 1 s, 2 s, 4 s, … up to this between attempts. */
const MAX_RESTART_DELAY_MS = 30_000;
/** Failures in a row (to start, or right after starting) before a server is given up on. */
const MAX_FAILURES_IN_A_ROW = 6;
/** How much of a stdio server's standard error is kept to say why it went away. */
const STDERR_TAIL_CHARS = 2_000;

type Client = InstanceType<McpSdk['Client']>;

/**
 * One server's connection, with its tools as the agent's.
 *
 * @example
 * const connection = new McpConnection({ name: 'docs', config, sdk, cwd, validator, onChange });
 * await connection.start();
 * connection.tools(); // [mcp__docs__search, …]
 */
export class McpConnection {
  readonly name: string;
  readonly #parts: McpConnectionParts;
  #state: McpServerState = 'connecting';
  #client: Client | undefined;
  #tools: Tool[] = [];
  #problems: string[] = [];
  #error: string | undefined;
  #restarts = 0;
  #failuresInARow = 0;
  #timer: NodeJS.Timeout | undefined;
  #stderr = '';
  #transport: McpServerStatus['transport'];
  /** Whether tools were listed once: a server's tools stay offered while it restarts. */
  #everListed = false;
  /** The listing a `tools/list_changed` started, until it ends. */
  #refreshing: Promise<void> = Promise.resolve();

  constructor(parts: McpConnectionParts) {
    this.name = parts.name;
    this.#parts = parts;
    this.#transport =
      'command' in parts.config ? 'stdio' : parts.config.type === 'sse' ? 'sse' : 'http';
  }

  /** Connects and lists the tools; a failure leaves the server restarting, never a rejection. */
  async start(): Promise<void> {
    try {
      await this.#connect();
    } catch (error) {
      this.#wentDown(`could not start: ${this.#reason(error)}`);
    }
  }

  /** The tools the model is offered: the last listed, even while the server restarts. */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      state: this.#state,
      transport: this.#transport,
      tools: this.#tools.map((tool) => tool.name),
      problems: [...this.#problems],
      ...(this.#error === undefined ? {} : { error: this.#error }),
      restarts: this.#restarts,
    };
  }

  /** Closes the connection (a stdio server's process with it) and stops reconnecting. */
  async close(): Promise<void> {
    this.#state = 'closed';
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const { config } = this.#parts;
    const timeoutMs = config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.#state = 'connecting';
    const client = this.#newClient();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not answer within ${timeoutMs} ms (startupTimeoutMs)`)),
        timeoutMs,
      );
    });
    try {
      const opened = await Promise.race([this.#open(client), deadline]);
      const listed = await Promise.race([listTools(opened), deadline]);
      // The agent may have shut down while the server was starting.
      if (this.#closedNow()) {
        await opened.close().catch(() => undefined);
        return;
      }
      this.#client = opened;
      this.#state = 'connected';
      this.#error = undefined;
      this.#setTools(listed);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Opens the transport the config names; Streamable HTTP falls back to SSE. */
  async #open(client: Client): Promise<Client> {
    const { config, sdk } = this.#parts;
    if ('command' in config) {
      const transport = new sdk.StdioClientTransport({
        command: config.command,
        ...(config.args === undefined ? {} : { args: config.args }),
        ...(config.env === undefined ? {} : { env: config.env }),
        cwd: config.cwd ?? this.#parts.cwd,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      await client.connect(transport);
      return client;
    }
    const url = new URL(config.url);
    const requestInit =
      config.headers === undefined ? {} : { requestInit: { headers: config.headers } };
    if (config.type === 'sse') {
      await client.connect(new sdk.SSEClientTransport(url, requestInit));
      return client;
    }
    try {
      await client.connect(new sdk.StreamableHTTPClientTransport(url, requestInit));
      this.#transport = 'http';
      return client;
    } catch (error) {
      if (refusesAccess(error, sdk)) throw error;
      // A server of the older protocol answers Streamable HTTP's first POST with an error.
      const fallback = this.#newClient();
      await fallback
        .connect(new sdk.SSEClientTransport(url, requestInit))
        .catch((sseError: unknown) => {
          throw new Error(
            `Streamable HTTP failed (${this.#reason(error)}) and so did HTTP+SSE (${this.#reason(sseError)})`,
          );
        });
      this.#transport = 'sse';
      return fallback;
    }
  }

  #newClient(): Client {
    const client: Client = new this.#parts.sdk.Client(
      { name: 'agent-statechart', version: PACKAGE_VERSION },
      {
        capabilities: {},
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              this.#refreshing = this.#refresh(client);
            },
          },
        },
      },
    );
    client.onclose = () => {
      if (this.#client === client && this.#state === 'connected') {
        this.#client = undefined;
        this.#wentDown(`went away${this.#stderrTail()}`);
      }
    };
    // Transport errors also close the connection or fail the request they belong to.
    client.onerror = () => undefined;
    return client;
  }

  async #refresh(client: Client): Promise<void> {
    if (this.#client !== client) return;
    try {
      const listed = await listTools(client);
      if (this.#client === client) this.#setTools(listed);
    } catch (error) {
      this.#parts.onChange({
        server: this.name,
        kind: 'tools',
        message: `the MCP server '${this.name}' said its tools changed, and listing them failed: ${this.#reason(error)}`,
      });
    }
  }

  #setTools(listed: McpListedTool[]): void {
    const tools: Tool[] = [];
    const problems: string[] = [];
    const settings = this.#parts.config.tools ?? {};
    for (const entry of listed) {
      const made = mcpTool(entry, {
        server: this.name,
        settings: settings[entry.name],
        toolTimeoutMs: this.#parts.config.toolTimeoutMs,
        validator: this.#parts.validator,
        call: (name, input, ctx) => this.#call(name, input, ctx),
      });
      if ('tool' in made) tools.push(made.tool);
      else problems.push(made.problem);
    }
    const changed =
      !this.#everListed ||
      !sameTools(this.#tools, tools) ||
      problems.join() !== this.#problems.join();
    this.#tools = tools;
    this.#problems = problems;
    this.#everListed = true;
    this.#failuresInARow = 0;
    if (changed) {
      this.#parts.onChange({
        server: this.name,
        kind: 'tools',
        message: `the MCP server '${this.name}' offers ${tools.length} tool${tools.length === 1 ? '' : 's'}`,
      });
    }
  }

  async #call(name: string, input: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const client = this.#client;
    if (client === undefined || this.#state !== 'connected') {
      throw new Error(
        `the MCP server '${this.name}' is ${this.#state === 'connecting' ? 'reconnecting' : this.#state === 'restarting' ? 'down and restarting' : this.#state}${this.#error === undefined ? '' : ` (${this.#error})`}; the call was not made. Try again later, or do without this tool`,
      );
    }
    try {
      const result = await client.callTool({ name, arguments: input }, undefined, {
        signal: ctx.signal,
        // The SDK's own request timeout is set out of the way: the tool call's timeout decides.
        timeout: MAX_TIMEOUT_MS,
        onprogress: (progress) => ctx.reportProgress(progress),
      });
      // A call that changed the server's tools (it says so before it answers) ends once the new
      // list is taken, so the model request after it offers them. The SDK hands notifications
      // on a turn after the response that follows them.
      await setImmediate();
      await this.#refreshing;
      return toToolAnswer(result as McpCallResult);
    } catch (error) {
      if (ctx.signal.aborted) {
        // The protocol's cancellation is a request the server may not honour in time.
        throw new Error(
          `cancelled: the MCP server '${this.name}' was asked to stop the call; it may or may not have taken effect`,
          { cause: error },
        );
      }
      if (this.#client !== client) {
        throw new Error(
          `the MCP server '${this.name}' went away during the call; it may or may not have taken effect`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** The server is down: its tools answer with an error, and it is started again after a wait. */
  #wentDown(why: string): void {
    if (this.#state === 'closed') return;
    this.#failuresInARow += 1;
    this.#error = why;
    if (this.#failuresInARow >= MAX_FAILURES_IN_A_ROW) {
      this.#state = 'failed';
      this.#parts.onChange({
        server: this.name,
        kind: 'failed',
        message: `the MCP server '${this.name}' ${why}; it failed ${this.#failuresInARow} times in a row and is given up on: its tools answer with an error`,
      });
      return;
    }
    const delayMs = Math.min(1_000 * 2 ** (this.#failuresInARow - 1), MAX_RESTART_DELAY_MS);
    this.#state = 'restarting';
    this.#parts.onChange({
      server: this.name,
      kind: 'down',
      message: `the MCP server '${this.name}' ${why}; starting it again in ${delayMs / 1000} s`,
    });
    this.#timer = setTimeout(() => void this.#restart(), delayMs);
    // A server waiting to restart must not keep the process alive on its own.
    this.#timer.unref();
  }

  async #restart(): Promise<void> {
    if (this.#state !== 'restarting') return;
    this.#stderr = '';
    try {
      await this.#connect();
      if (this.#closedNow()) return;
      this.#restarts += 1;
      this.#parts.onChange({
        server: this.name,
        kind: 'up',
        message: `the MCP server '${this.name}' is back`,
      });
    } catch (error) {
      this.#wentDown(`could not start again: ${this.#reason(error)}`);
    }
  }

  /** Read again after an await: `close` may have run meanwhile. */
  #closedNow(): boolean {
    return this.#state === 'closed';
  }

  #reason(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return `${message}${this.#stderrTail()}`;
  }

  #stderrTail(): string {
    const lastLine = this.#stderr.trim().split('\n').at(-1);
    return lastLine === undefined || lastLine === '' ? '' : ` (its last words: ${lastLine})`;
  }
}

/** Every tool of the server, page by page. */
async function listTools(client: Client): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...(page.tools as McpListedTool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** A 401 or 403: the other transport would be refused the same way. */
function refusesAccess(error: unknown, sdk: McpSdk): boolean {
  return error instanceof sdk.StreamableHTTPError && (error.code === 401 || error.code === 403);
}

function sameTools(before: readonly Tool[], after: readonly Tool[]): boolean {
  if (before.length !== after.length) return false;
  return before.every((tool, index) => {
    const other = after[index]!;
    return (
      tool.name === other.name &&
      tool.description === other.description &&
      tool.mutating === other.mutating &&
      tool.idempotent === other.idempotent &&
      JSON.stringify(tool.inputSchema) === JSON.stringify(other.inputSchema)
    );
  });
}
