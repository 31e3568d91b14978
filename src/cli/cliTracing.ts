/**
 * `run --otel`: the agent's spans printed as they end, or sent with OTLP over HTTP when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. The
 * OpenTelemetry SDK packages are loaded only here, and only when asked for: the library itself
 * depends on `@opentelemetry/api` alone.
 */
import type { Tracer } from '@opentelemetry/api';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as TraceSdk from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * A tracer for the run, and how to flush and stop it.
 *
 * @example
 * const tracing = await startCliTracing(process.env, (line) => process.stderr.write(line));
 * const agent = createAgent({ telemetry: { tracer: tracing.tracer } });
 * await tracing.shutdown();
 */
export interface CliTracing {
  tracer: Tracer;
  /** Where the spans go, for the banner. */
  destination: string;
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for `run --otel`. Rejects with an install hint when the SDK packages are
 * missing.
 *
 * @example
 * const tracing = await startCliTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }, write);
 * tracing.destination; // 'OTLP http://localhost:4318/v1/traces'
 */
export async function startCliTracing(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
): Promise<CliTracing> {
  const sdk = await importOrHint<typeof TraceSdk>('@opentelemetry/sdk-trace-base');
  const url = tracesUrl(env);
  let processor;
  let destination: string;
  if (url !== undefined) {
    const otlp = await importOrHint<typeof OtlpHttp>('@opentelemetry/exporter-trace-otlp-http');
    // The URL from the run's environment; headers and timeout the exporter reads from the
    // standard variables itself.
    processor = new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url }));
    destination = `OTLP ${url}`;
  } else {
    processor = new sdk.SimpleSpanProcessor(printingExporter(write));
    destination = 'printed as each span ends';
  }
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [processor] });
  return {
    tracer: provider.getTracer('agent-statechart'),
    destination,
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Where OTLP/HTTP sends traces, as the exporter specification reads the variables: the traces
 * endpoint as given, or the base endpoint with `/v1/traces`.
 */
function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base === undefined || base === '') return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

async function importOrHint<Module>(name: string): Promise<Module> {
  try {
    return (await import(name)) as Module;
  } catch {
    throw new Error(
      `--otel needs the OpenTelemetry SDK: npm install @opentelemetry/api @opentelemetry/sdk-trace-base${
        name.includes('otlp') ? ' @opentelemetry/exporter-trace-otlp-http' : ''
      }`,
    );
  }
}

/**
 * The API's `SpanStatusCode.ERROR`, fixed by the specification: the API itself is not imported
 * here, so that the command line starts without it.
 */
const STATUS_ERROR = 2;

/** An exporter that writes one line per span: its name, duration, ids and attributes. */
function printingExporter(write: (line: string) => void): SpanExporter {
  return {
    export(spans, done) {
      for (const span of spans) write(`${describeSpan(span)}\n`);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
}

/**
 * One span on one line.
 *
 * @example
 * describeSpan(span); // '  [otel] chat claude-sonnet-5-5 412 ms trace 4bf9… span 00f0… parent 53ad… gen_ai.usage.output_tokens=12 …'
 */
function describeSpan(span: ReadableSpan): string {
  const [seconds, nanos] = span.duration;
  const ms = Math.round(seconds * 1e3 + nanos / 1e6);
  const { traceId, spanId } = span.spanContext();
  const parent = span.parentSpanContext?.spanId;
  const attributes = Object.entries(span.attributes)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(' ');
  const events = span.events.map((event) => event.name).join(',');
  return [
    `  [otel] ${span.name} ${ms} ms`,
    `trace ${traceId.slice(0, 8)}`,
    `span ${spanId.slice(0, 8)}`,
    ...(parent === undefined ? [] : [`parent ${parent.slice(0, 8)}`]),
    ...((span.status.code as number) === STATUS_ERROR
      ? [`ERROR ${span.status.message ?? ''}`.trimEnd()]
      : []),
    ...(events === '' ? [] : [`events ${events}`]),
    attributes,
  ].join(' ');
}
