/**
 * The parts of the MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency) an agent
 * uses, loaded the first time an agent is given MCP servers.
 */
import { importOptionalPeer } from '../persistence/index.js';

/**
 * The MCP SDK's client classes and its JSON Schema validator.
 *
 * @example
 * const sdk = await loadMcpSdk();
 * const client = new sdk.Client({ name: 'agent-statechart', version: '0.1.0' });
 */
export type McpSdk = Awaited<ReturnType<typeof loadModules>>;

/**
 * Loads the SDK, or throws `MISSING_PEER_DEPENDENCY` saying what to install.
 *
 * @example
 * const { Client, StdioClientTransport } = await loadMcpSdk();
 */
export function loadMcpSdk(): Promise<McpSdk> {
  return importOptionalPeer('@modelcontextprotocol/sdk', 'mcpServers', loadModules);
}

async function loadModules() {
  const [client, stdio, streamableHttp, sse, ajv] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    SSEClientTransport: sse.SSEClientTransport,
    AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator,
  };
}
