/**
 * The process the resumed-trace test kills: a traced parent with a stored session hands a task to
 * its subagent, and the process dies as the subagent's model answer is about to be stored, the
 * subagent mid-turn. Every span is written to a file as it starts, so the spans still open when
 * the process dies (the task call's, among them) are known to the test.
 */
import { appendFileSync } from 'node:fs';
import type { Context } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAgent } from '../../../src/index.js';
import type { SessionStore } from '../../../src/persistence/sessionStore.js';
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import { INPUT, turnAgentOptions } from '../../persistence/subagent/subagentTurn.js';

/** What the test starts the process with (as JSON, its one argument). */
export interface TracedParentSettings {
  workspace: string;
  baseURL: string;
  sessionId: string;
  sqlite: string;
  sideFile: string;
  spansFile: string;
}

/** One line of the spans file: a span as it started. */
export interface StartedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  callId: unknown;
}

/** Writes each span as it starts, synchronously: a killed process loses nothing written. */
function startedSpans(file: string): SpanProcessor {
  return {
    onStart(span: Span, _parent: Context) {
      const { traceId, spanId } = span.spanContext();
      const started: StartedSpan = {
        name: span.name,
        traceId,
        spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        callId: span.attributes['gen_ai.tool.call.id'],
      };
      appendFileSync(file, `${JSON.stringify(started)}\n`);
    },
    onEnd: (_span: ReadableSpan) => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

/** The store, dying just before a subagent's session (an id with a `/`) stores a model answer. */
function dyingStore(store: SessionStore): SessionStore {
  return {
    ...store,
    async append(sessionId, write) {
      const answered = write.entries.some(
        (entry) => entry.kind === 'event' && entry.data.type === 'LlmCompleted',
      );
      if (sessionId.includes('/') && answered) process.kill(process.pid, 'SIGKILL');
      await store.append(sessionId, write);
    },
  };
}

const settings = JSON.parse(process.argv[2] ?? '{}') as TracedParentSettings;
const provider = new BasicTracerProvider({ spanProcessors: [startedSpans(settings.spansFile)] });
const agent = createAgent({
  ...turnAgentOptions(settings),
  store: dyingStore(createSqliteSessionStore({ path: settings.sqlite, durability: 'normal' })),
  sessionId: settings.sessionId,
  telemetry: { tracer: provider.getTracer('traced-parent-child'), agentName: 'lead' },
});
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
// Were the process not killed, it would end here, and the test see no signal.
await agent.run(INPUT, { timeoutMs: 20_000 });
await agent.shutdown();
