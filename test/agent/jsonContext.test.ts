/**
 * DESIGN section 4, "Serialisable", in actor mode: a real agent (the SDK against the local
 * Messages API server, real tool actors) whose tool reports random progress and returns random
 * results — BigInts, dates, maps, cycles, getters and proxies that throw — keeps a context that
 * is exactly plain JSON in every snapshot the actor produces.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type AgentSnapshot,
  defineTool,
  findTranscriptViolations,
  type ToolResultBlock,
} from '../../src/index.js';
import { reply, type ScriptFunction } from '../../src/testing/index.js';
import { drawPayload } from '../support/hostileValues.js';
import { sessionsClosedAfterEach } from './harness.js';

const startSession = sessionsClosedAfterEach();

/** What one tool call reports and returns. */
interface CallPlan {
  progress: unknown[];
  output: unknown;
}

// A megabyte string in every later request and snapshot would only make the run slow; nesting
// too deep to keep is a unit test of its own.
const drawValue = (g: fc.GeneratorValue) => drawPayload(g, ['hugeString', 'deepNesting']);

function drawPlan(g: fc.GeneratorValue): CallPlan[] {
  const calls = g(fc.integer, { min: 1, max: 3 });
  return Array.from({ length: calls }, () => ({
    progress: Array.from({ length: g(fc.integer, { min: 0, max: 4 }) }, () => drawValue(g)),
    output: drawValue(g),
  }));
}

/** What JSON cannot hold: `JSON.stringify` throws on it or has nothing to write. */
function jsonCannotHold(value: unknown): boolean {
  try {
    return JSON.stringify(value) === undefined;
  } catch {
    return true;
  }
}

function roundTripsExactly(snapshot: AgentSnapshot): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(JSON.stringify(snapshot)), snapshot);
  } catch {
    return false;
  }
}

describe('the context in actor mode', () => {
  it('drops a progress report of { bytes: 1024n } with a diagnostic, and the snapshot stays JSON while the tool runs', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const download = defineTool({
      name: 'download',
      description: 'Downloads',
      input: z.object({}),
      mutating: false,
      execute: async (_input, ctx) => {
        ctx.reportProgress({ bytes: 1024n });
        ctx.reportProgress({ bytes: 1024 });
        await released;
        return 'downloaded';
      },
    });
    const session = await startSession(
      [reply([{ type: 'tool_use', name: 'download', input: {} }]), reply('Done.')],
      { tools: [download], autoCommit: false },
    );
    const { agent, notes } = session;
    const reported = new Promise<void>((resolve) => {
      agent.actor.subscribe(() => {
        if (agent.context.toolRuns[0]?.progress !== undefined) resolve();
      });
    });
    agent.send('Download it.');
    await reported;
    expect(agent.state).toBe('ExecutingTools');
    expect(() => JSON.stringify(agent.snapshot())).not.toThrow();
    expect(agent.context.toolRuns[0]?.progress).toEqual({ bytes: 1024 });
    expect(notes.diagnostic).toMatchObject([
      {
        code: 'MALFORMED_EVENT',
        state: 'ExecutingTools',
        message: expect.stringMatching(
          /^ToolProgress from the download call toolu_\w+: progress is not JSON-serialisable \(.*BigInt.*\); it was dropped$/,
        ) as string,
        event: { type: 'ToolProgress', progress: { bytes: 1024n } },
      },
    ]);
    release();
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.context.messages.at(-1)).toMatchObject({ role: 'assistant' });
  });

  it('is plain JSON in every snapshot, whatever a tool reports as progress or returns', async () => {
    let plan: CallPlan[] = [];
    const emit = defineTool({
      name: 'emit',
      description: 'Reports the planned progress and returns the planned result',
      input: z.object({ index: z.number() }),
      mutating: false,
      execute: async ({ index }, ctx) => {
        const call = plan[index]!;
        for (const progress of call.progress) {
          ctx.reportProgress(progress);
          // A turn of the event loop, so each report is its own snapshot.
          await new Promise((resolve) => setImmediate(resolve));
        }
        return call.output;
      },
    });
    const script: ScriptFunction = (request) => {
      const last = request.messages.at(-1)?.content;
      const answered = Array.isArray(last) && last.some((block) => block.type === 'tool_result');
      if (answered) return reply('Done.');
      return reply(plan.map((_, index) => ({ type: 'tool_use', name: 'emit', input: { index } })));
    };
    const session = await startSession(script, { tools: [emit], autoCommit: false });
    const { agent, notes } = session;
    const counts = { snapshots: 0, withProgress: 0, notJson: 0 };
    agent.actor.subscribe(() => {
      counts.snapshots++;
      if (agent.context.toolRuns.some((run) => run.progress !== undefined)) counts.withProgress++;
      if (!roundTripsExactly(agent.snapshot())) counts.notJson++;
    });
    let refusedProgress = 0;
    let refusedOutputs = 0;
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        plan = drawPlan(g);
        for (const call of plan) {
          refusedProgress += call.progress.filter(
            (value) => value !== undefined && jsonCannotHold(value),
          ).length;
          if (call.output !== undefined && jsonCannotHold(call.output)) refusedOutputs++;
        }
        agent.send('Run the plan.');
        await agent.waitUntilIdle({ timeoutMs: 10_000 });
      }),
      { seed: 4, numRuns: 40 },
    );
    expect(counts.notJson).toBe(0);
    expect(counts.withProgress).toBeGreaterThan(20);
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
    // Each progress report JSON cannot hold was dropped and reported, each such result refused.
    const dropped = notes.diagnostic.filter((d) => d.message.startsWith('ToolProgress from'));
    expect(dropped).toHaveLength(refusedProgress);
    expect(refusedProgress).toBeGreaterThan(10);
    // (A proxy whose `get` throws fails the call before its result is read: an error too.)
    const failed = agent.context.messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter(
            (block): block is ToolResultBlock =>
              block.type === 'tool_result' && block.is_error === true,
          )
        : [],
    );
    expect(failed).toHaveLength(refusedOutputs);
    expect(refusedOutputs).toBeGreaterThan(5);
  });
});
