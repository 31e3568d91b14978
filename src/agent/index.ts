/**
 * What actor mode offers the rest of the package: `createAgent` and its handle, and the agent's
 * notification vocabulary, which the workers' event stream speaks too.
 */
export { Agent, type CompactionOutcome, type RunOptions, type ShutdownOptions } from './agent.js';
export type { AgentActors } from './agentActors.js';
export {
  type AgentListener,
  type Announce,
  type AgentNotification,
  type AgentNotificationName,
  type AgentNotifications,
  type ForwardedNotificationName,
  llmEndOf,
  type SubagentNotification,
  type SubagentRef,
  notificationsOfAction,
  toolEndsBetween,
} from './agentNotifications.js';
export { type CreateAgentOptions, createAgent } from './createAgent.js';
export type { InspectorOption } from './inspectorOption.js';
export {
  STARTUP_DIAGNOSTIC_CODES,
  type StartupDiagnostic,
  type StartupDiagnosticCode,
} from './startupDiagnostics.js';
