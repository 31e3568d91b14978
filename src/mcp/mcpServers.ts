/**
 * The MCP servers an agent (or a host's many agents) takes tools from, connected together.
 */
import { createToolRegistry, type Tool, type ToolRegistry } from '../actors/index.js';
import { loadMcpSdk } from './loadMcpSdk.js';
import { McpConnection } from './mcpConnection.js';
import type { McpServerChange, McpServerStatus } from './mcpServerStatus.js';
import { checkMcpServers, type McpServerConfig } from './mcpServerConfig.js';
import type { InputValidator } from './mcpTool.js';

/**
 * Options of {@link connectMcpServers}.
 *
 * @example
 * const options: ConnectMcpServersOptions = { cwd: '/srv/repo' };
 */
export interface ConnectMcpServersOptions {
  /** Directory a stdio server starts in when its config names none. Default: the current one. */
  cwd?: string;
}

/**
 * Connected MCP servers: their tools as the agent's (`mcp__<server>__<tool>`), where each stands,
 * and a way to hear when either changes. A server that failed to start or went away is started
 * again with backoff; its tools answer with an error meanwhile.
 *
 * Pass it to `createAgent({ mcpServers })` (or `createAgentHost`) to share the connections among
 * agents; whoever connected it closes it.
 *
 * @example
 * const servers = await connectMcpServers({ docs: { url: 'http://127.0.0.1:8080/mcp' } });
 * const a = createAgent({ mcpServers: servers });
 * const b = createAgent({ mcpServers: servers });
 * // …
 * await Promise.all([a.shutdown(), b.shutdown()]);
 * await servers.close();
 */
export class McpServers {
  readonly #connections: readonly McpConnection[];
  readonly #listeners = new Set<(change: McpServerChange) => void>();

  /** Use {@link connectMcpServers}. */
  private constructor(
    servers: Record<string, McpServerConfig>,
    make: (
      name: string,
      config: McpServerConfig,
      onChange: (change: McpServerChange) => void,
    ) => McpConnection,
  ) {
    const onChange = (change: McpServerChange): void => {
      for (const listener of this.#listeners) {
        try {
          listener(change);
        } catch {
          // A listener that throws must not stop the others or the connection.
        }
      }
    };
    this.#connections = Object.entries(servers).map(([name, config]) =>
      make(name, config, onChange),
    );
  }

  /** What {@link connectMcpServers} does. */
  static async connect(
    servers: Record<string, McpServerConfig>,
    options: ConnectMcpServersOptions = {},
  ): Promise<McpServers> {
    checkMcpServers(servers);
    const sdk = await loadMcpSdk();
    const ajv = new sdk.AjvJsonSchemaValidator();
    const validator = (schema: Record<string, unknown>): InputValidator => {
      const check = ajv.getValidator(schema);
      return (input) => {
        const result = check(input);
        return result.valid ? { valid: true } : { valid: false, errorMessage: result.errorMessage };
      };
    };
    const cwd = options.cwd ?? process.cwd();
    const set = new McpServers(
      servers,
      (name, config, onChange) =>
        new McpConnection({ name, config, sdk, cwd, validator, onChange }),
    );
    await Promise.all(set.#connections.map((connection) => connection.start()));
    return set;
  }

  /** Every server's tools, in the order the servers were given. */
  tools(): Tool[] {
    return this.#connections.flatMap((connection) => connection.tools());
  }

  /**
   * A registry of `own` tools followed by every server's, as they are now. Throws
   * `DUPLICATE_TOOL` if one of `own` has a server tool's name.
   *
   * @example
   * const registry = servers.registryWith(createBuiltinTools());
   */
  registryWith(own: readonly Tool[]): ToolRegistry {
    return createToolRegistry([...own, ...this.tools()]);
  }

  /**
   * Where each server stands, its tools and the tools left out.
   *
   * @example
   * for (const { name, state, tools } of servers.status()) console.log(`${name}: ${state}, ${tools.length} tools`);
   */
  status(): McpServerStatus[] {
    return this.#connections.map((connection) => connection.status());
  }

  /**
   * Calls `listener` when a server's tools change, or it goes down, comes back or is given up on.
   * Returns a function that stops listening.
   *
   * @example
   * const stop = servers.onChange(({ kind, message }) => kind !== 'tools' && console.warn(message));
   */
  onChange(listener: (change: McpServerChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes every server: connections, and the processes of stdio servers. */
  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }
}

/**
 * Connects to MCP servers, all at once, each within its `startupTimeoutMs`, and resolves when
 * each has connected or failed (a failed one is `restarting`; see `status()`). Rejects only for a
 * config it cannot use (`INVALID_OPTION`) or when `@modelcontextprotocol/sdk` is not installed
 * (`MISSING_PEER_DEPENDENCY`).
 *
 * @example
 * const servers = await connectMcpServers({
 *   github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] },
 *   docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: `Bearer ${token}` } },
 * });
 * console.log(servers.tools().map((tool) => tool.name)); // ['mcp__github__create_issue', …]
 */
export async function connectMcpServers(
  servers: Record<string, McpServerConfig>,
  options: ConnectMcpServersOptions = {},
): Promise<McpServers> {
  return McpServers.connect(servers, options);
}
