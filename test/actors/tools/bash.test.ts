import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { collectOutput } from '../../../src/actors/tools/builtins/collectOutput.js';
import { createBashTool } from '../../../src/actors/tools/builtins/createBashTool.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { errorMessage, successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const registry = createToolRegistry([createBashTool({ maxOutputBytes: 100 })]);

function bash(
  workspace: string,
  input: unknown,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
) {
  return runToolCall(registry, { id: 'b1', name: 'bash', input }, { workspace, ...options });
}

/** Alive and not a zombie (a killed process may wait a moment for its reaper). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

async function isGoneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return true;
    await delay(20);
  }
  return !isRunning(pid);
}

async function readPid(path: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() !== '') return Number(text.trim());
    await delay(10);
  }
  throw new Error(`no pid in ${path}`);
}

describe('bash', () => {
  it('runs in the workspace root and reports stdout, stderr and the exit code', async () => {
    const workspace = await dirs.make();
    const outcome = await bash(workspace, { command: 'pwd; echo oops >&2; exit 3' });
    expect(successOutput(outcome)).toBe(`${workspace}\noops\n[exit code 3]`);
  });

  it('changes files relative to the workspace', async () => {
    const workspace = await dirs.make();
    await bash(workspace, { command: 'mkdir -p out && printf made > out/f.txt' });
    expect(await readFile(join(workspace, 'out', 'f.txt'), 'utf8')).toBe('made');
  });

  it('says when a command printed nothing', async () => {
    const workspace = await dirs.make();
    expect(successOutput(await bash(workspace, { command: 'true' }))).toBe(
      '(no output)\n[exit code 0]',
    );
  });

  it('keeps the start and end of long output and notes what was dropped', async () => {
    const workspace = await dirs.make();
    const output = String(successOutput(await bash(workspace, { command: 'seq 1 1000' })));
    expect(output.startsWith('1\n2\n3\n')).toBe(true);
    expect(output.endsWith('999\n1000\n[exit code 0]')).toBe(true);
    expect(output).toMatch(/\[… \d+ bytes of output omitted …\]/);
    expect(output.length).toBeLessThan(200);
  });

  it('kills a command past its registry timeout, with its whole process group, promptly', async () => {
    const workspace = await dirs.make();
    const started = Date.now();
    const outcome = await bash(
      workspace,
      { command: 'echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait' },
      { timeoutMs: 300 },
    );
    expect(errorMessage(outcome)).toBe('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await isGoneWithin(await readPid(join(workspace, 'shell.pid')), 2_000)).toBe(true);
    expect(await isGoneWithin(await readPid(join(workspace, 'child.pid')), 2_000)).toBe(true);
  });

  it("honours the model's timeout_ms and returns the output so far", async () => {
    const workspace = await dirs.make();
    const started = Date.now();
    const outcome = await bash(workspace, { command: 'echo partial; sleep 30', timeout_ms: 300 });
    expect(errorMessage(outcome)).toBe(
      'command timed out after 300 ms and was killed; output so far:\npartial',
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('kills the command when the caller cancels', async () => {
    const workspace = await dirs.make();
    const controller = new AbortController();
    const pending = bash(
      workspace,
      { command: 'echo $$ > shell.pid; sleep 30' },
      { signal: controller.signal },
    );
    const pid = await readPid(join(workspace, 'shell.pid'));
    controller.abort();
    expect(errorMessage(await pending)).toBe('cancelled');
    expect(await isGoneWithin(pid, 2_000)).toBe(true);
  });

  it('returns when the command exits and kills what it left running in the background', async () => {
    const workspace = await dirs.make();
    const started = Date.now();
    const outcome = await bash(workspace, { command: 'sleep 30 & echo $! > bg.pid; echo done' });
    expect(successOutput(outcome)).toBe('done\n[exit code 0]');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await isGoneWithin(await readPid(join(workspace, 'bg.pid')), 2_000)).toBe(true);
  });

  it('refuses a timeout_ms above the configured maximum', async () => {
    const workspace = await dirs.make();
    const outcome = await bash(workspace, { command: 'true', timeout_ms: 10_000_000 });
    expect(errorMessage(outcome)).toMatch(/- timeout_ms: .*<=600000/);
  });
});

describe('collectOutput', () => {
  it('keeps everything under the cap, even a character split across chunks', () => {
    const output = collectOutput(100);
    const bytes = Buffer.from('héllo');
    output.push(bytes.subarray(0, 2));
    output.push(bytes.subarray(2));
    expect(output.text()).toBe('héllo');
    expect(output.droppedBytes()).toBe(0);
  });

  it('keeps half the budget from the start and half from the end', () => {
    const output = collectOutput(10);
    output.push(Buffer.from('0123456789'));
    output.push(Buffer.from('abcdef'));
    expect(output.text()).toBe('01234\n[… 6 bytes of output omitted …]\nbcdef');
    expect(output.droppedBytes()).toBe(6);
  });
});
