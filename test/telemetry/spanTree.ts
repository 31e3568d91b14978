/** The exported spans of a test, as a tree a test compares with what it expects. */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The spans as a tree of names, children in the order they started (or in `order`); a span whose
 * parent was not exported (a session's turn hangs under a parent no process exports) is a root.
 */
export function tree(
  spans: readonly ReadableSpan[],
  order: (a: ReadableSpan, b: ReadableSpan) => number = byStart,
): unknown {
  const exported = new Set(spans.map((span) => span.spanContext().spanId));
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parentId = span.parentSpanContext?.spanId;
    const parent = parentId !== undefined && exported.has(parentId) ? parentId : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const node = (span: ReadableSpan): unknown => {
    const children = (byParent.get(span.spanContext().spanId) ?? []).sort(order);
    return children.length === 0 ? span.name : { [span.name]: children.map(node) };
  };
  return (byParent.get(undefined) ?? []).sort(order).map(node);
}

function byStart(a: ReadableSpan, b: ReadableSpan): number {
  return hrMs(a.startTime) - hrMs(b.startTime);
}

function hrMs([seconds, nanos]: [number, number]): number {
  return seconds * 1e3 + nanos / 1e6;
}
