/**
 * An interrupted tool call's result tells the model the truth: after the interrupt, the agent
 * learns (within a grace period) how each aborted call really ended, and the result matches what
 * happened on disk. Real tools writing real files, through a real agent and the real SDK.
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  defineTool,
  findTranscriptViolations,
  type Message,
  type ToolResultBlock,
} from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

// Wide enough that a loaded machine never stretches a call that ends at once past it.
const GRACE_MS = 1_000;

/**
 * A mutating tool that waits up to `delayMs`, then writes its file. Obedient ones stop on their
 * signal at every await (and say so); stubborn ones hear it and write at once anyway; hanging
 * ones ignore it and write after the whole delay.
 */
function writer(name: string, delayMs: number, kind: 'obedient' | 'stubborn' | 'hanging') {
  return defineTool({
    name,
    description: `Writes a file after ${delayMs} ms.`,
    input: z.object({ path: z.string() }),
    mutating: true,
    execute: async ({ path }, { signal, workspace }) => {
      const wait = kind === 'hanging' ? {} : { signal };
      await sleep(delayMs, undefined, wait).catch(() => {
        if (kind === 'obedient') throw new Error('stopped before writing');
      });
      if (kind === 'obedient' && signal.aborted) throw new Error('stopped before writing');
      await writeFile(join(workspace, path), 'written');
      return `wrote ${path}`;
    },
  });
}

const HANGING_MS = GRACE_MS + 1_500;
const TOOLS = [
  writer('stubborn_write', 150, 'stubborn'),
  writer('obedient_write', 5_000, 'obedient'),
  writer('hanging_write', HANGING_MS, 'hanging'),
];

const call = (name: string, path: string) => ({ type: 'tool_use', name, input: { path } }) as const;

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Resolves once every tool call of the latest response has its result. */
async function settled(agent: Agent): Promise<void> {
  while (agent.context.toolRuns.some((run) => run.status !== 'done')) await sleep(10);
}

function results(messages: readonly Message[]): Record<string, string> {
  const byPath: Record<string, string> = {};
  const last = messages.at(-1);
  const uses = messages.at(-2);
  if (last === undefined || uses === undefined) return byPath;
  for (const block of Array.isArray(last.content) ? last.content : []) {
    if (block.type !== 'tool_result') continue;
    const result = block as ToolResultBlock;
    const use = Array.isArray(uses.content)
      ? uses.content.find(
          (candidate) => candidate.type === 'tool_use' && candidate.id === result.tool_use_id,
        )
      : undefined;
    const path = (use as { input?: { path?: string } } | undefined)?.input?.path ?? '?';
    byPath[path] =
      typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
  }
  return byPath;
}

/** An agent with the writers, asked to write, returned once its tool calls are running. */
async function startWriting(script: Parameters<typeof startSession>[0]): Promise<Session> {
  const s = await startSession(script, {
    tools: TOOLS,
    toolGraceMs: GRACE_MS,
    autoCommit: false,
    permissions: { mode: 'bypassPermissions' },
  });
  session = s;
  s.agent.send('write the files');
  await new Promise<void>((resolve) => s.agent.on('toolStart', () => resolve()));
  await sleep(30);
  return s;
}

async function interruptWhileRunning(paths: Array<[string, string]>): Promise<Session> {
  const s = await startWriting([
    reply(paths.map(([name, path]) => call(name, path))),
    reply('Understood.'),
  ]);
  s.agent.interrupt();
  expect(s.agent.state).toBe('WaitingForUserInput');
  await settled(s.agent);
  return s;
}

const MAY_OR_MAY_NOT =
  'interrupted: the user interrupted the turn before this tool call finished; it may or may not have taken effect';
const STOPPED =
  'interrupted: the user interrupted the turn and the call stopped (stopped before writing)';

describe('an interrupted tool call', () => {
  it('that finishes its write anyway is reported with its real outcome', async () => {
    const s = await interruptWhileRunning([['stubborn_write', 'a.txt']]);
    expect(results(s.agent.context.messages)).toEqual({ 'a.txt': 'wrote a.txt' });
    expect(await exists(join(s.workspace, 'a.txt'))).toBe(true);
  });

  it('that stops on its signal is reported as stopped, and nothing was written', async () => {
    const s = await interruptWhileRunning([['obedient_write', 'b.txt']]);
    expect(results(s.agent.context.messages)).toEqual({ 'b.txt': STOPPED });
    expect(await exists(join(s.workspace, 'b.txt'))).toBe(false);
  });

  it('that is still running when the grace period ends may or may not have taken effect', async () => {
    const started = Date.now();
    const s = await interruptWhileRunning([['hanging_write', 'c.txt']]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS);
    expect(results(s.agent.context.messages)).toEqual({ 'c.txt': MAY_OR_MAY_NOT });
    // It did take effect after all, later: the result never claimed otherwise.
    await expect
      .poll(() => exists(join(s.workspace, 'c.txt')), { timeout: HANGING_MS + 5_000 })
      .toBe(true);
  });

  it('in parallel with others: each call gets its own true ending, in call order', async () => {
    const s = await interruptWhileRunning([
      ['obedient_write', 'one.txt'],
      ['stubborn_write', 'two.txt'],
      ['hanging_write', 'three.txt'],
    ]);
    expect(results(s.agent.context.messages)).toEqual({
      'one.txt': STOPPED,
      'two.txt': 'wrote two.txt',
      'three.txt': MAY_OR_MAY_NOT,
    });
    expect(await exists(join(s.workspace, 'one.txt'))).toBe(false);
    expect(await exists(join(s.workspace, 'two.txt'))).toBe(true);
    expect(findTranscriptViolations(s.agent.context.messages)).toEqual([]);
  });

  it('leaves the next turn to start normally, after the results, even if typed during the grace period', async () => {
    const s = await startWriting([
      reply([call('hanging_write', 'd.txt')]),
      reply('Understood, stopping.'),
    ]);
    s.agent.interrupt();
    expect(s.agent.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    // A second interrupt during the grace period has nothing left to interrupt.
    s.agent.interrupt();
    expect(s.notes.diagnostic.map((d) => `${d.code}: ${d.message}`)).toEqual([
      'EVENT_NOT_ACCEPTED: Interrupt is not accepted in state WaitingForUserInput.SettlingCancelledCalls; nothing changed',
    ]);
    // Input typed now is taken (queued until the call has reported), so nothing is diagnosed.
    s.agent.send('never mind');
    expect(s.notes.diagnostic).toHaveLength(1);
    expect(s.agent.context.queue).toEqual([{ role: 'user', content: 'never mind' }]);
    await s.agent.waitUntilIdle({ timeoutMs: 10_000 });
    const sent = s.server.requests.at(-1)?.body.messages ?? [];
    expect(findTranscriptViolations(sent)).toEqual([]);
    expect(results(sent.slice(0, -1))).toEqual({ 'd.txt': MAY_OR_MAY_NOT });
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'never mind' });
    expect(s.agent.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Understood, stopping.' }],
    });
  });
});

describe('shutting down with a tool call running', () => {
  it('with drain lets the call finish and records its real outcome', async () => {
    const s = await startSession([reply([call('stubborn_write', 'e.txt')]), reply('Written.')], {
      tools: TOOLS,
      autoCommit: false,
      permissions: { mode: 'bypassPermissions' },
    });
    session = s;
    s.agent.send('write it');
    await new Promise<void>((resolve) => s.agent.on('toolStart', () => resolve()));
    await s.agent.shutdown({ drain: true });
    expect(await exists(join(s.workspace, 'e.txt'))).toBe(true);
    const messages = s.agent.context.messages;
    expect(results(messages.slice(0, -1))).toEqual({ 'e.txt': 'wrote e.txt' });
    expect(findTranscriptViolations(messages)).toEqual([]);
  });

  it('without drain says the call may or may not have taken effect, which is true either way', async () => {
    const s = await startWriting([reply([call('obedient_write', 'f.txt')])]);
    await s.agent.shutdown();
    expect(results(s.agent.context.messages)).toEqual({
      'f.txt':
        'cancelled: the agent shut down before this tool call finished; it may or may not have taken effect',
    });
    expect(await exists(join(s.workspace, 'f.txt'))).toBe(false);
    expect(findTranscriptViolations(s.agent.context.messages)).toEqual([]);
  });
});
