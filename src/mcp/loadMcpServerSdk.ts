/**
 * The server side of the MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency),
 * loaded the first time an agent is served over MCP. Kept apart from `loadMcpSdk` so an agent
 * that only takes tools from MCP servers never loads the server classes.
 */
import { importOptionalPeer } from '../persistence/index.js';

/**
 * The MCP SDK's server class and its stdio server transport.
 *
 * @example
 * const sdk = await loadMcpServerSdk();
 * const server = new sdk.McpServer({ name: 'repo-agent', version: '1.0.0' });
 */
export type McpServerSdk = Awaited<ReturnType<typeof loadModules>>;

/**
 * Loads the SDK's server side, or throws `MISSING_PEER_DEPENDENCY` saying what to install.
 *
 * @example
 * const { McpServer, StdioServerTransport } = await loadMcpServerSdk();
 */
export function loadMcpServerSdk(): Promise<McpServerSdk> {
  return importOptionalPeer('@modelcontextprotocol/sdk', 'serveAgentOverMcp', loadModules);
}

async function loadModules() {
  const [mcp, stdio] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  return { McpServer: mcp.McpServer, StdioServerTransport: stdio.StdioServerTransport };
}
