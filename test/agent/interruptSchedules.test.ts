/**
 * A seeded property: 500 random interrupt schedules — tool calls that stop on their signal or
 * ignore it, finishing before, during or after the grace period, interrupted at random moments —
 * while another thread keeps a core busy. No tool result may contradict the file system.
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Agent, defineTool, type Message, type ToolResultBlock } from '../../src/index.js';
import { reply, type ScriptedBlock } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

const SCHEDULES = 500;
const AGENTS = 10;
const GRACE_MS = 150;
const LONGEST_CALL_MS = 350;

/** A small seeded generator (mulberry32), so a failing schedule can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const timedWrite = defineTool({
  name: 'timed_write',
  description: 'Writes a file after a delay, stopping on its signal or not.',
  input: z.object({ path: z.string(), delayMs: z.number(), obedient: z.boolean() }),
  mutating: true,
  execute: async ({ path, delayMs, obedient }, { signal, workspace }) => {
    await sleep(delayMs, undefined, obedient ? { signal } : {}).catch(() => {
      throw new Error('stopped before writing');
    });
    if (obedient && signal.aborted) throw new Error('stopped before writing');
    await writeFile(join(workspace, path), 'written');
    return `wrote ${path}`;
  },
});

interface Verdict {
  path: string;
  result: string;
}

let load: Worker | undefined;
beforeAll(() => {
  // Keeps one core busy for the whole run: timers fire late, callbacks interleave differently.
  load = new Worker('for (;;) {}', { eval: true });
});
afterAll(async () => {
  await load?.terminate();
});

/** The results of the latest tool calls in the transcript, by the file each call writes. */
function lastResults(messages: readonly Message[]): Verdict[] {
  let at = messages.length - 1;
  while (at > 0 && !hasToolResults(messages[at])) at--;
  const uses = messages[at - 1];
  const answers = messages[at];
  if (!Array.isArray(uses?.content) || !Array.isArray(answers?.content)) return [];
  return answers.content.flatMap((block) => {
    if (block.type !== 'tool_result') return [];
    const result = block as ToolResultBlock;
    const use = (uses.content as ScriptedBlock[]).find(
      (candidate) => candidate.type === 'tool_use' && candidate.id === result.tool_use_id,
    ) as { input: { path: string } } | undefined;
    return use ? [{ path: use.input.path, result: resultText(result) }] : [];
  });
}

function resultText(result: ToolResultBlock): string {
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

function hasToolResults(message: Message | undefined): boolean {
  return (
    Array.isArray(message?.content) && message.content.some((block) => block.type === 'tool_result')
  );
}

async function settled(agent: Agent): Promise<void> {
  while (agent.context.toolRuns.some((run) => run.status !== 'done')) await sleep(5);
}

/** One agent running its share of the schedules, one after another. */
async function runSchedules(
  index: number,
  count: number,
): Promise<{ session: Session; verdicts: Verdict[] }> {
  const next = random(1_000 + index);
  const plans: Array<{
    calls: Array<{ path: string; delayMs: number; obedient: boolean }>;
    interruptAfterMs: number;
  }> = [];
  for (let n = 0; n < count; n++) {
    const calls = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, c) => ({
      path: `agent${index}-turn${n}-call${c}.txt`,
      // Mostly short, sometimes past the grace period.
      delayMs:
        next() < 0.15
          ? GRACE_MS + Math.floor(next() * (LONGEST_CALL_MS - GRACE_MS))
          : Math.floor(next() * 80),
      obedient: next() < 0.5,
    }));
    plans.push({ calls, interruptAfterMs: Math.floor(next() * 80) });
  }
  const session = await startSession(
    (request) => {
      // A new turn asks for the next plan's calls; tool results that arrive get a short answer.
      const last = request.messages.at(-1);
      if (typeof last?.content !== 'string') return reply('Noted.');
      const turn =
        request.messages.filter((message) => typeof message.content === 'string').length - 1;
      return reply(
        (plans[turn]?.calls ?? []).map((input) => ({
          type: 'tool_use',
          name: 'timed_write',
          input,
        })),
      );
    },
    {
      tools: [timedWrite],
      toolGraceMs: GRACE_MS,
      autoCommit: false,
      permissions: { mode: 'bypassPermissions' },
    },
  );
  const verdicts: Verdict[] = [];
  for (const plan of plans) {
    const started = new Promise<void>((resolve) => {
      const stop = session.agent.on('toolStart', () => {
        stop();
        resolve();
      });
    });
    session.agent.send('write the files');
    await started;
    await sleep(plan.interruptAfterMs);
    // The calls may all have finished already: then the turn goes on, and the result is theirs.
    if (session.agent.state === 'ExecutingTools') session.agent.interrupt();
    await settled(session.agent);
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    verdicts.push(...lastResults(session.agent.context.messages));
  }
  return { session, verdicts };
}

describe('interrupt schedules under load', () => {
  it(
    `${SCHEDULES} random schedules: 0 results contradict the file system`,
    { timeout: 120_000 },
    async () => {
      const runs = await Promise.all(
        Array.from({ length: AGENTS }, (_, index) => runSchedules(index, SCHEDULES / AGENTS)),
      );
      // Every call has ended by now, including those that ignored their signal.
      await sleep(LONGEST_CALL_MS + 100);
      const contradictions: string[] = [];
      const kinds = new Map<string, number>();
      for (const { session, verdicts } of runs) {
        for (const { path, result } of verdicts) {
          const written = await access(join(session.workspace, path)).then(
            () => true,
            () => false,
          );
          const kind = result.startsWith('wrote ')
            ? 'completed'
            : result.includes('may or may not')
              ? 'unknown'
              : result.startsWith('interrupted: the user interrupted the turn and the call stopped')
                ? 'stopped'
                : 'other';
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          if (kind === 'completed' && !written)
            contradictions.push(`${path}: "${result}" but no file`);
          if (kind === 'stopped' && written)
            contradictions.push(`${path}: "${result}" but written`);
          if (kind === 'other') contradictions.push(`${path}: unexpected result "${result}"`);
        }
        await session.close();
      }
      expect(contradictions).toEqual([]);
      // The schedules covered every kind of ending.
      for (const kind of ['completed', 'unknown', 'stopped'])
        expect(kinds.get(kind) ?? 0).toBeGreaterThan(10);
    },
  );
});
