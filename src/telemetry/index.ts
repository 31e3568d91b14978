/**
 * OpenTelemetry spans of an agent's work (GenAI semantic conventions), read off the chart's
 * events and actions.
 */
export {
  AgentTracer,
  remoteParent,
  type SpanParent,
  spanParentOf,
  type TelemetryOptions,
  telemetryOptions,
} from './agentTracer.js';
export { SessionTracers } from './sessionTracers.js';
export { keepingStoredParent, TRACE_PARENT_KEY, withTraceParent } from './traceParent.js';
export { traceActor } from './traceActor.js';
