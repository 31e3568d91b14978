/**
 * One worker process of the failover test: `startSessionWorker` with three tools — `look`
 * (read-only), `bump` (mutating: appends `<key> <call id>` to the side file, after a pause that
 * leaves room to kill it mid-call) and `hold` (read-only, notes its start in `<side file>.hold`
 * and takes 5 s). Mutating calls wait for approval; the model may ask the user questions
 * (`askUser`) and hand a task to the subagent `researcher` (its system prompt `You are the
 * researcher.`, its tools `hold` and `bump`), which runs as a drive of its own on any worker. A
 * turn that ends `unverified <key>` goes on once: the stop hook notes the key in
 * `<side file>.stop`, takes 5 s, and asks to verify it. Prints `ready <executor id>`,
 * then one line per fenced write and per recovery it made, and, declared dead, `declared dead`
 * and `stopped taking work <ms since the epoch>`. Environment: DATABASE_URL, MODEL_URL,
 * SIDE_FILE, LEASE_MS, CONCURRENCY (default 40), SPANS_FILE (the worker traces its sessions and
 * appends each span there as one JSON line, with its process id, as the span ends).
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', 'test/workers/workerMain.ts'], { env });
 */
import { appendFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { startSessionWorker } from '../../src/dbos/index.js';
import { createToolRegistry, defineTool } from '../../src/index.js';
import { testLlmClient } from '../support/llmTransport.js';

const env = process.env;
const tools = createToolRegistry([
  defineTool({
    name: 'look',
    description: 'Looks at something.',
    input: z.object({ key: z.string() }),
    mutating: false,
    execute: async ({ key }) => `looked at ${key}`,
  }),
  defineTool({
    name: 'hold',
    description: 'Takes its time (long enough to pause its worker in the middle).',
    input: z.object({ key: z.string() }),
    mutating: false,
    execute: async ({ key }) => {
      await appendFile(`${env.SIDE_FILE!}.hold`, `${key}\n`);
      await sleep(5_000);
      return `held ${key}`;
    },
  }),
  defineTool({
    name: 'bump',
    description: 'Counts once per call, in a side file.',
    input: z.object({ key: z.string() }),
    mutating: true,
    execute: async ({ key }, context) => {
      await sleep(30);
      await appendFile(env.SIDE_FILE!, `${key} ${context.callId}\n`);
      return `bumped ${key}`;
    },
  }),
]);

/** Spans as JSON lines, written as each ends, so a worker killed later has left what it ended. */
function spansTo(file: string) {
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor({
        export(spans, done) {
          for (const span of spans) {
            const line = {
              pid: process.pid,
              name: span.name,
              traceId: span.spanContext().traceId,
              conversation: span.attributes['gen_ai.conversation.id'],
            };
            appendFileSync(file, `${JSON.stringify(line)}\n`);
          }
          done({ code: 0 });
        },
        shutdown: () => Promise.resolve(),
      }),
    ],
  });
  return { tracer: provider.getTracer('failover') };
}

const worker = await startSessionWorker({
  connectionString: env.DATABASE_URL!,
  agent: {
    tools: tools.specs(),
    permissions: { mode: 'default' },
    maxRetries: 5,
    askUser: true,
    agents: {
      researcher: {
        description: 'Researches one topic and reports.',
        system: 'You are the researcher.',
        tools: ['hold', 'bump'],
      },
    },
  },
  tools,
  workspace: process.cwd(),
  llm: testLlmClient({ baseURL: env.MODEL_URL!, apiKey: 'test' }),
  // Room for a dead worker's sessions on the others while the load goes on.
  concurrency: Number(env.CONCURRENCY ?? 40),
  ...(env.DBOS_LOG_LEVEL ? { logLevel: env.DBOS_LOG_LEVEL as 'warn' } : {}),
  leaseMs: Number(env.LEASE_MS ?? 2000),
  onFenced: (sessionId) => process.stdout.write(`fenced ${sessionId}\n`),
  // Declared dead (paused past its lease): linger a moment before exiting, so the work that was
  // in flight when it was paused goes on and tries its late writes, which the test counts refused.
  onDeclaredDead: () => {
    process.stdout.write(`declared dead\nstopped taking work ${Date.now()}\n`);
    setTimeout(() => process.exit(75), 3_000);
  },
  hooks: {
    stop: async ({ text }) => {
      const key = /^unverified (\S+)$/.exec(text)?.[1];
      if (key === undefined) return undefined;
      await appendFile(`${env.SIDE_FILE!}.stop`, `${key}\n`);
      await sleep(5_000);
      return { decision: 'continue', reason: `verify ${key}` };
    },
  },
  onRecovery: (recovery) => process.stdout.write(`recovered ${JSON.stringify(recovery)}\n`),
  ...(env.SPANS_FILE ? { telemetry: spansTo(env.SPANS_FILE) } : {}),
});
process.stdout.write(`ready ${worker.executorId}\n`);
process.on('SIGTERM', () => void worker.stop().then(() => process.exit(0)));
