import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectOutput } from '../../../src/actors/tools/builtins/collectOutput.js';
import {
  type BashToolOptions,
  createBashTool,
} from '../../../src/actors/tools/builtins/createBashTool.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { sandboxUnavailable } from '../../support/bubblewrap.js';
import { errorMessage, successOutput } from './outcomes.js';
import {
  GONE_WITHIN_MS,
  processesWith,
  RETURNS_WITHIN_MS,
  uniqueSleep,
  until,
} from './processes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();

const variants: { name: string; options: BashToolOptions; skip: boolean }[] = [
  { name: 'in the sandbox', options: {}, skip: sandboxUnavailable !== null },
  { name: 'without a sandbox (sandbox: false)', options: { sandbox: false }, skip: false },
];

for (const variant of variants) {
  describe.skipIf(variant.skip)(`bash ${variant.name}`, () => {
    const registry = createToolRegistry([
      createBashTool({ maxOutputBytes: 100, ...variant.options }),
    ]);
    const bash = (
      workspace: string,
      input: unknown,
      options: { timeoutMs?: number; signal?: AbortSignal } = {},
    ) => runToolCall(registry, { id: 'b1', name: 'bash', input }, { workspace, ...options });

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

    it('kills a command past its registry timeout, with everything it started, promptly', async () => {
      const workspace = await dirs.make();
      const sleep = uniqueSleep();
      const started = Date.now();
      const pending = bash(
        workspace,
        { command: `${sleep} & ${sleep}; wait` },
        { timeoutMs: 3_000 },
      );
      expect(await until(() => processesWith(sleep).length >= 2, GONE_WITHIN_MS / 2)).toBe(true);
      const outcome = await pending;
      expect(errorMessage(outcome)).toBe('timed out after 3000 ms');
      expect(Date.now() - started).toBeLessThan(RETURNS_WITHIN_MS);
      expect(await until(() => processesWith(sleep).length === 0, GONE_WITHIN_MS)).toBe(true);
    });

    it("honours the model's timeout_ms and returns the output so far", async () => {
      const workspace = await dirs.make();
      const started = Date.now();
      const outcome = await bash(workspace, {
        command: `echo partial; ${uniqueSleep()}`,
        timeout_ms: 3_000,
      });
      expect(errorMessage(outcome)).toBe(
        'command timed out after 3000 ms and was killed; output so far:\npartial',
      );
      expect(Date.now() - started).toBeLessThan(RETURNS_WITHIN_MS);
    });

    it('kills the command when the caller cancels', async () => {
      const workspace = await dirs.make();
      const sleep = uniqueSleep();
      const controller = new AbortController();
      const pending = bash(workspace, { command: sleep }, { signal: controller.signal });
      expect(await until(() => processesWith(sleep).length > 0, 5_000)).toBe(true);
      controller.abort();
      expect(errorMessage(await pending)).toBe(
        'cancelled: the command was killed before it finished',
      );
      expect(await until(() => processesWith(sleep).length === 0, GONE_WITHIN_MS)).toBe(true);
    });

    it('returns when the command exits and kills what it left running in the background', async () => {
      const workspace = await dirs.make();
      const sleep = uniqueSleep();
      const started = Date.now();
      const outcome = await bash(workspace, { command: `${sleep} & echo done` });
      expect(successOutput(outcome)).toBe('done\n[exit code 0]');
      expect(Date.now() - started).toBeLessThan(RETURNS_WITHIN_MS);
      expect(await until(() => processesWith(sleep).length === 0, GONE_WITHIN_MS)).toBe(true);
    });

    it('refuses a timeout_ms above the configured maximum', async () => {
      const workspace = await dirs.make();
      const outcome = await bash(workspace, { command: 'true', timeout_ms: 10_000_000 });
      expect(errorMessage(outcome)).toMatch(/- timeout_ms: .*<=600000/);
    });
  });
}

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
