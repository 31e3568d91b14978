/**
 * Spans kept in memory, as the tests read them: `@opentelemetry/sdk-trace-base`'s in-memory
 * exporter behind a provider of its own (not the global one), and a tracer from it.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * A provider whose spans end up in `exporter`, and its tracer named `name`.
 *
 * @example
 * const { exporter, tracer } = memoryTracing('agent-statechart-test');
 * createAgent({ telemetry: { tracer } });
 */
export function memoryTracing(name: string) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer(name) };
}
