/**
 * What the host offers: many durable sessions in one process, each loaded on its first event.
 */
export {
  type AgentHost,
  type AgentHostOptions,
  createAgentHost,
  type HostNotification,
} from './createAgentHost.js';
