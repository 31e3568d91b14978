/**
 * Watching agents live: the package's own offline inspector page (`startInspectorServer`), Stately's
 * inspector (`createStatelyInspector`, through the optional peer `@statelyai/inspect`), the
 * recorder behind the page, and the sanitiser both use on everything that leaves the process.
 *
 * @example
 * import { createAgent } from 'agent-statechart';
 * import { startInspectorServer } from 'agent-statechart/inspect';
 *
 * const inspector = await startInspectorServer();
 * const agent = createAgent({ inspect: inspector.observer });
 * console.log(`Inspector: ${inspector.url}`);
 */
export { applyContextPatch } from './contextPatch.js';
export {
  createInspectorServer,
  type InspectorServer,
  type InspectorServerOptions,
} from './createInspectorServer.js';
export {
  createStatelyInspector,
  type StatelyInspector,
  type StatelyInspectorOptions,
} from './createStatelyInspector.js';
export {
  emittedBy,
  emittedEvents,
  type InspectionObserver,
  InspectionRecorder,
  type InspectionRecorderOptions,
  type RecorderChange,
} from './inspectionRecorder.js';
export type {
  AgentBase,
  AgentHistory,
  AgentSummary,
  ContextPatch,
  InspectorMessage,
  RecordedStep,
  StepStatus,
} from './inspectorProtocol.js';
export {
  DEFAULT_REDACT_KEYS,
  DEFAULT_REDACT_VALUES,
  type JsonValue,
  REDACTED,
  type SanitizeOptions,
  sanitizeForInspection,
} from './sanitizeForInspection.js';
export {
  type InspectStoredSessionOptions,
  inspectStoredSession,
  storedAgentId,
  type StoredSessionView,
} from './inspectStoredSession.js';
export {
  type SessionAncestor,
  type SessionPlace,
  sessionPlace,
  type SubagentSession,
} from './sessionPlace.js';
export {
  type StoredSessionCatalog,
  storedSessionCatalog,
  type StoredSessionsOptions,
} from './storedSessionCatalog.js';
export { type StartedInspectorServer, startInspectorServer } from './startInspectorServer.js';
export type { StatelyRelayOptions } from './startStatelyRelay.js';
export type { SocketConstructor } from './statelySocketAdapter.js';
