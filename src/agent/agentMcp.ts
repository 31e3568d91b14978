/**
 * An agent's MCP servers: connected before its chart starts (or shared, when the caller
 * connected them), their tools joined to the agent's, kept current as servers change, and
 * reported when a server goes down.
 */
import type { Tool, ToolRegistry } from '../actors/index.js';
import type { AgentEvent } from '../machine/index.js';
import {
  checkMcpServers,
  connectMcpServers,
  type McpServerChange,
  type McpServerConfig,
  McpServers,
} from '../mcp/index.js';
import type { NotificationHub } from './agentNotifications.js';

/**
 * The agent's MCP servers as it holds them: connecting, and whether it closes them on shutdown.
 *
 * @example
 * const mcp = agentMcp(options.mcpServers, workspace);
 * const servers = await mcp?.servers;
 */
export interface AgentMcp {
  servers: Promise<McpServers>;
  /** Whether the agent connected them itself, and so closes them on shutdown. */
  owned: boolean;
}

/**
 * Checks the option at once (a bad config throws from `createAgent`) and starts connecting.
 *
 * @example
 * agentMcp({ docs: { url: 'http://127.0.0.1:8080/mcp' } }, '/srv/repo');
 */
export function agentMcp(
  option: Record<string, McpServerConfig> | McpServers | Promise<McpServers> | undefined,
  workspace: string,
): AgentMcp | undefined {
  if (option === undefined) return undefined;
  if (option instanceof McpServers || option instanceof Promise) {
    return { servers: Promise.resolve(option), owned: false };
  }
  checkMcpServers(option);
  const servers = connectMcpServers(option, { cwd: workspace });
  // Awaited by the agent's start; a rejection is reported there.
  servers.catch(() => undefined);
  return { servers, owned: true };
}

/** What {@link followMcpServers} needs of the agent. */
export interface McpFollower {
  /** The agent's own tools (built-ins and `tools`), which come first. */
  tools: readonly Tool[];
  /** Takes the new registry of all tools. */
  replace: (registry: ToolRegistry) => void;
  /** Hands the chart its new tool list. */
  dispatch: (event: AgentEvent) => void;
  hub: NotificationHub;
}

/**
 * Keeps the agent's tools and the chart's tool list in step with the servers, and reports a
 * server going down, coming back or being given up on (an `mcp` notification, and an `error`
 * when it stops answering). Returns a function that stops following.
 *
 * @example
 * const stop = followMcpServers(servers, { tools, replace, dispatch, hub });
 */
export function followMcpServers(servers: McpServers, follower: McpFollower): () => void {
  return servers.onChange((change: McpServerChange) => {
    follower.hub.emit('mcp', change);
    if (change.kind === 'down' || change.kind === 'failed') {
      follower.hub.emit('error', { message: change.message, source: 'mcp' });
    }
    // A server that comes back lists its tools again, and says 'tools' only if they changed.
    if (change.kind !== 'tools') return;
    let registry: ToolRegistry;
    try {
      registry = servers.registryWith(follower.tools);
    } catch (error) {
      follower.hub.emit('error', {
        message: `the MCP server '${change.server}' changed its tools, and they could not be taken: ${error instanceof Error ? error.message : String(error)}`,
        source: 'mcp',
      });
      return;
    }
    follower.replace(registry);
    follower.dispatch({ type: 'SetTools', tools: registry.specs() });
  });
}
