export {
  type McpServerChange,
  type McpServerState,
  type McpServerStatus,
} from './mcpConnection.js';
export {
  checkMcpServers,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolSettings,
} from './mcpServerConfig.js';
export { type ConnectMcpServersOptions, connectMcpServers, McpServers } from './mcpServers.js';
export { mcpToolName } from './mcpTool.js';
export { loadMcpServerSdk, type McpServerSdk } from './loadMcpServerSdk.js';
export {
  type AgentMcpServer,
  type ServeAgentOverMcpOptions,
  type ServedAgent,
  serveAgentOverMcp,
} from './serveAgentOverMcp.js';
