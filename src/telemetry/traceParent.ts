/**
 * The span a subagent's session keeps in its header: its task call's `execute_tool task` span,
 * which every turn of the subagent goes under, in whatever process drives it (a worker, or a
 * parent resumed in a new process after a crash, where the call's span is not open).
 */
import type { Context } from '@opentelemetry/api';
import {
  remoteParent,
  type SpanParent,
  spanParentOf,
  type TelemetryOptions,
} from './agentTracer.js';

/**
 * Where a subagent's session keeps, in its header's metadata, the span of the task call its
 * turns go under (a {@link SpanParent}).
 *
 * @example
 * const parent = spanParentOf(header.metadata?.[TRACE_PARENT_KEY]);
 */
export const TRACE_PARENT_KEY = 'traceParent';

/**
 * A subagent's session's metadata, from what its parent's session keeps: the span the parent's
 * own turns go under is left out (it is not the subagent's), and the task call's span, when the
 * parent is traced, is put in.
 *
 * @example
 * const metadata = withTraceParent({ ...parentMetadata, subagent: link }, tracer?.toolSpanParent(callId));
 */
export function withTraceParent(
  metadata: Record<string, unknown>,
  parent: SpanParent | undefined,
): Record<string, unknown> {
  const { [TRACE_PARENT_KEY]: _parents, ...kept } = metadata;
  return parent === undefined ? kept : { ...kept, [TRACE_PARENT_KEY]: parent };
}

/**
 * Telemetry options whose turns fall back on the span a stored session keeps: `keep` reads it off
 * the session's header as the session opens. A parent the options give wins while it has a span
 * (a task call's span open in this process); the stored one stands in when it has none (the
 * parent was resumed here, and its call's span died with the process that opened it).
 *
 * @example
 * const { options, keep } = keepingStoredParent({ parentContext: () => lead.toolContext(callId) });
 * const tracer = new AgentTracer(options);
 * keep((await store.load(sessionId))?.header.metadata);
 */
export function keepingStoredParent(options: TelemetryOptions): {
  options: TelemetryOptions;
  keep: (metadata: Record<string, unknown> | undefined) => void;
} {
  const given = options.parentContext;
  // A context given outright is there for every turn: nothing stored would be asked for.
  if (given !== undefined && typeof given !== 'function') return { options, keep: () => undefined };
  let stored: (() => Context) | undefined;
  return {
    options: { ...options, parentContext: () => given?.() ?? stored?.() },
    keep(metadata) {
      const parent = spanParentOf(metadata?.[TRACE_PARENT_KEY]);
      stored = parent === undefined ? undefined : remoteParent(parent);
    },
  };
}
