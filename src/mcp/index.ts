export {
  type McpServerChange,
  type McpServerState,
  type McpServerStatus,
} from './mcpServerStatus.js';
export {
  checkMcpServers,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolSettings,
} from './mcpServerConfig.js';
export { type ConnectMcpServersOptions, connectMcpServers, McpServers } from './mcpServers.js';
export { mcpToolName } from './mcpTool.js';
export {
  type AgentMcpServer,
  type McpTransport,
  type ServeAgentOverMcpOptions,
  type ServedAgent,
  serveAgentOverMcp,
} from './serveAgentOverMcp.js';
