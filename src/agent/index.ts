/**
 * Actor mode, assembled: `createAgent` starts the chart with the package's actors and, on
 * request, an inspector; the `Agent` handle talks to it.
 */
export {
  Agent,
  type AgentActors,
  type CreateAgentOptions,
  createAgent,
  type ShutdownOptions,
} from './createAgent.js';
export {
  type AgentListener,
  type AgentNotificationName,
  type AgentNotifications,
} from './agentNotifications.js';
