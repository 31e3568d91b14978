/**
 * What an agent says about its MCP servers: where each stands, and what changed. Plain data, so
 * the package's declarations need nothing of the MCP SDK.
 */

/**
 * Where a server stands.
 *
 * - `connecting`: starting, or reaching it, and listing its tools;
 * - `connected`: its tools answer;
 * - `restarting`: it went away or failed to start; its tools answer with an error until it is back;
 * - `failed`: it failed too often in a row and is given up on (until the agent starts again);
 * - `closed`: the agent shut down.
 *
 * @example
 * const state: McpServerState = 'connected';
 */
export type McpServerState = 'connecting' | 'connected' | 'restarting' | 'failed' | 'closed';

/**
 * What an agent knows of one MCP server.
 *
 * @example
 * for (const server of agent.mcpServers?.status() ?? []) console.log(server.name, server.state, server.tools.length);
 */
export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** How it is reached: a child process, Streamable HTTP, or the older HTTP+SSE. */
  transport: 'stdio' | 'http' | 'sse';
  /** Its tools the model is offered, by the agent's names (`mcp__<server>__<tool>`). */
  tools: string[];
  /** Its tools the model is not offered, each with why (a name or schema the API refuses). */
  problems: string[];
  /** Why it is down, while it is. */
  error?: string;
  /** How many times it was reconnected after going away. */
  restarts: number;
}

/**
 * Something that changed about a server: its tools, or whether it answers.
 *
 * @example
 * servers.onChange((change) => { if (change.kind !== 'tools') console.warn(change.message); });
 */
export interface McpServerChange {
  server: string;
  kind: 'tools' | 'down' | 'up' | 'failed';
  message: string;
}
