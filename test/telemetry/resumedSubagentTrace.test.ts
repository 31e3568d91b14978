/**
 * A traced parent whose process is killed while its subagent is mid-turn, resumed in this process
 * (a new tracer, no span of the first process open): the subagent's resumed turn goes on in the
 * parent's first trace, under the task call's `execute_tool task` span the dead process opened,
 * which the subagent's session keeps in its header. A real process is killed; the model is the
 * local Messages API server, behind the real SDK; the sessions are in one SQLite file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryTracing } from '../support/memoryTracing.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Message } from '../../src/index.js';
import { startMessagesApiServer } from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import { useTempStore } from '../support/tempStore.js';
import { runChild } from '../persistence/crash/childRuns.js';
import { CHILD_ANSWER, treeModel, turnAgentOptions } from '../persistence/subagent/subagentTurn.js';
import type { StartedSpan, TracedParentSettings } from './crash/tracedParentChild.js';

let childScript = '';
beforeAll(async () => {
  const directory = await bundleChild('traced-parent', [
    'test/telemetry/crash/tracedParentChild.ts',
  ]);
  childScript = join(directory, 'tracedParentChild.mjs');
});
const temp = useTempStore('resumed-subagent-trace-');

/** The spans the killed process started, by name. */
async function startedIn(file: string): Promise<(name: string) => StartedSpan[]> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const spans = lines.map((line) => JSON.parse(line) as StartedSpan);
  return (name) => spans.filter((span) => span.name === name);
}

function lastText(messages: readonly Message[]): string {
  const content = messages.at(-1)?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('a traced parent resumed after its process died mid-task', () => {
  it(
    'continues its subagent’s turns under the task call’s span of the first process',
    { timeout: 60_000 },
    async () => {
      const server = await startMessagesApiServer({ script: treeModel() });
      try {
        const sessionId = 'lead-1';
        const settings: TracedParentSettings = {
          workspace: temp.directory,
          baseURL: server.baseURL,
          sessionId,
          sqlite: temp.path,
          sideFile: join(temp.directory, 'side.txt'),
          spansFile: join(temp.directory, 'spans.jsonl'),
        };
        await writeFile(settings.sideFile, '');
        await writeFile(settings.spansFile, '');

        // The first process dies with the subagent's turn under way, its task call's span open.
        const killed = await runChild(childScript, { ...settings });
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        const started = await startedIn(settings.spansFile);
        const [task] = started('execute_tool task');
        expect(started('execute_tool task')).toHaveLength(1);
        const callId = task!.callId as string;
        const [first] = started('invoke_agent researcher');
        expect(first?.parentSpanId).toBe(task!.spanId);
        expect(first?.traceId).toBe(task!.traceId);

        // The subagent's session keeps the task call's span.
        const childSession = await temp.store.load(`${sessionId}/${callId}`);
        expect(childSession?.header.metadata?.traceParent).toEqual({
          traceId: task!.traceId,
          spanId: task!.spanId,
          traceFlags: 1,
        });

        // This process resumes the parent, with a tracer of its own.
        const { exporter, tracer } = memoryTracing('resumed');
        const agent = createAgent({
          ...turnAgentOptions({
            workspace: temp.directory,
            sideFile: settings.sideFile,
            baseURL: server.baseURL,
          }),
          store: temp.store,
          sessionId,
          telemetry: { tracer, agentName: 'lead' },
        });
        try {
          await agent.waitUntilIdle({ timeoutMs: 20_000 });
          expect(lastText(agent.context.messages)).toBe(`Done: ${CHILD_ANSWER}`);
        } finally {
          await agent.shutdown();
        }

        // The subagent's resumed turn hangs under the dead process's task call's span, in its trace.
        const spans = exporter.getFinishedSpans();
        const resumed = spans.filter((span) => span.name === 'invoke_agent researcher');
        expect(resumed).toHaveLength(1);
        expect(resumed[0]!.spanContext().traceId).toBe(task!.traceId);
        expect(resumed[0]!.parentSpanContext?.spanId).toBe(task!.spanId);
        expect(resumed[0]!.attributes['gen_ai.conversation.id']).toBe(`${sessionId}/${callId}`);
        // The parent's turn goes on in the same trace (its session's), as do all the spans below.
        const [lead] = spans.filter((span) => span.name === 'invoke_agent lead');
        expect(lead?.spanContext().traceId).toBe(task!.traceId);
        expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
          new Set([task!.traceId]),
        );
      } finally {
        await server.close();
      }
    },
  );
});
