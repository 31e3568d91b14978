/**
 * The tools a worker's drives run, and the chart's config that names them: the caller's, and the
 * tools of the worker's MCP servers, kept current as the servers change. Each drive step opens
 * its session with the config of that moment (a session stores no config), so a changed tool
 * list reaches the next model request of every session without an event in its log.
 */
import { liveToolRegistry, type ToolRegistry } from '../actors/index.js';
import type { AgentConfig } from '../machine/index.js';
import { connectMcpServers, type McpServerConfig, McpServers } from '../mcp/index.js';

/**
 * What a worker's drives take their tools from.
 *
 * @example
 * const tools = await workerTools(options.agent, options.tools, options.mcpServers, '/srv/ws');
 * SessionCore.open(store, sessionId, { config: tools.config() });
 */
export interface WorkerTools {
  /** The chart's config now: the caller's, with the MCP servers' tools added. */
  config(): AgentConfig;
  /** Runs the calls: the caller's tools and the MCP servers' of this moment. */
  registry: ToolRegistry;
  /** Stops following the servers, and closes them when the worker connected them. */
  close(): Promise<void>;
}

/**
 * Connects the worker's MCP servers (when it has any) and joins their tools to the caller's.
 *
 * @example
 * const tools = await workerTools({ tools: registry.specs() }, registry, { docs: { url } }, process.cwd());
 */
export async function workerTools(
  agent: AgentConfig,
  tools: ToolRegistry,
  mcpServers: Record<string, McpServerConfig> | McpServers | undefined,
  cwd: string,
): Promise<WorkerTools> {
  if (mcpServers === undefined) {
    return { config: () => agent, registry: tools, close: () => Promise.resolve() };
  }
  const owned = !(mcpServers instanceof McpServers);
  const servers = owned ? await connectMcpServers(mcpServers, { cwd }) : mcpServers;
  const build = () => {
    const registry = servers.registryWith(tools.tools);
    // The servers' tools come after the caller's in the registry; the config names the caller's
    // as it gave them.
    const mcpSpecs = registry.specs().slice(tools.tools.length);
    return { registry, config: { ...agent, tools: [...(agent.tools ?? []), ...mcpSpecs] } };
  };
  let current = build();
  const stop = servers.onChange(({ kind }) => {
    if (kind !== 'tools') return;
    try {
      current = build();
    } catch {
      // A tool name the caller's tools already use: the list the drives have stays as it was.
    }
  });
  return {
    config: () => current.config,
    registry: liveToolRegistry(() => current.registry),
    async close() {
      stop();
      if (owned) await servers.close();
    },
  };
}
