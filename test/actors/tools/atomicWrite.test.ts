/**
 * write_file and edit_file replace a file atomically: a new inode renamed into place, so a hard
 * link is never written through and a crash or cancel before the rename changes nothing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, link, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../../src/actors/tools/builtins/createEditFileTool.js';
import { createWriteFileTool } from '../../../src/actors/tools/builtins/createWriteFileTool.js';
import { writeFileAtomically } from '../../../src/actors/tools/builtins/writeFileAtomically.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { errorMessage, successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const registry = createToolRegistry([createWriteFileTool(), createEditFileTool()]);
const HANG_BEFORE_COMMIT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'support',
  'hangBeforeCommit.ts',
);

function run(workspace: string, name: string, input: unknown) {
  return runToolCall(registry, { id: 'w1', name, input }, { workspace });
}

/** base/outside/target.txt, and base/ws/linked.txt: a hard link to it from inside the workspace. */
async function hardLinkedLayout() {
  const base = await dirs.make();
  const outside = join(base, 'outside', 'target.txt');
  const ws = join(base, 'ws');
  await mkdir(dirname(outside));
  await mkdir(ws);
  await writeFile(outside, 'outside content\n');
  await link(outside, join(ws, 'linked.txt'));
  return { ws, outside, inode: (await stat(outside)).ino };
}

describe('atomic writes', () => {
  it.each([
    ['write_file', { path: 'linked.txt', content: 'new content\n' }],
    ['edit_file', { path: 'linked.txt', old_string: 'outside', new_string: 'new' }],
  ])('%s replaces a hard link to a file outside, never writing through it', async (name, input) => {
    const { ws, outside, inode } = await hardLinkedLayout();
    successOutput(await run(ws, name, input));
    expect(await readFile(join(ws, 'linked.txt'), 'utf8')).toBe('new content\n');
    expect(await readFile(outside, 'utf8')).toBe('outside content\n');
    const [outsideStat, insideStat] = [await stat(outside), await stat(join(ws, 'linked.txt'))];
    expect(outsideStat.ino).toBe(inode);
    expect(outsideStat.nlink).toBe(1);
    expect(insideStat.ino).not.toBe(inode);
  });

  it('keeps the permission bits of the file it replaces', async () => {
    const ws = await dirs.make();
    await writeFile(join(ws, 'run.sh'), 'echo one\n');
    await chmod(join(ws, 'run.sh'), 0o750);
    await writeFile(join(ws, 'key.txt'), 'old');
    await chmod(join(ws, 'key.txt'), 0o600);
    successOutput(
      await run(ws, 'edit_file', { path: 'run.sh', old_string: 'one', new_string: 'two' }),
    );
    successOutput(await run(ws, 'write_file', { path: 'key.txt', content: 'new' }));
    expect((await stat(join(ws, 'run.sh'))).mode & 0o777).toBe(0o750);
    expect((await stat(join(ws, 'key.txt'))).mode & 0o777).toBe(0o600);
  });

  it('leaves no temporary file behind', async () => {
    const ws = await dirs.make();
    successOutput(await run(ws, 'write_file', { path: 'a.txt', content: 'one' }));
    successOutput(await run(ws, 'write_file', { path: 'a.txt', content: 'two' }));
    expect(await readdir(ws)).toEqual(['a.txt']);
  });

  it('a crash between write and rename leaves the old file whole', async () => {
    const ws = await dirs.make();
    const target = join(ws, 'a.txt');
    await writeFile(target, 'old content');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', HANG_BEFORE_COMMIT, target, 'new content'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [ready] = (await once(child.stdout, 'data')) as [Buffer];
    expect(ready.toString()).toBe('ready\n');
    // The new content is complete in its temporary file: only the rename is missing.
    const pending = (await readdir(ws)).filter((name) => name !== 'a.txt');
    expect(pending).toEqual([expect.stringMatching(/^\.a\.txt\.[0-9a-f]{12}\.tmp$/)]);
    expect(await readFile(join(ws, pending[0]!), 'utf8')).toBe('new content');
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await readFile(target, 'utf8')).toBe('old content');
  });

  it('a cancel before the rename leaves the file as it was, and says so', async () => {
    const ws = await dirs.make();
    const target = join(ws, 'a.txt');
    await writeFile(target, 'old content');
    const controller = new AbortController();
    await expect(
      writeFileAtomically(target, 'new content', {
        signal: controller.signal,
        beforeCommit: () => controller.abort(new Error('interrupted')),
      }),
    ).rejects.toThrow('interrupted');
    expect(await readFile(target, 'utf8')).toBe('old content');
    expect(await readdir(ws)).toEqual(['a.txt']);

    const tool = registry.get('write_file')!;
    const aborted = AbortSignal.abort();
    await expect(
      Promise.resolve(
        tool.execute(
          { path: 'a.txt', content: 'x' },
          {
            workspace: ws,
            signal: aborted,
            callId: 'w1',
            reportProgress: () => undefined,
            reportChangedPaths: () => undefined,
          },
        ),
      ),
    ).rejects.toThrow("cancelled before 'a.txt' was written; the file is unchanged");
  });

  it('refuses to replace a directory', async () => {
    const ws = await dirs.make();
    await mkdir(join(ws, 'dir'));
    expect(errorMessage(await run(ws, 'write_file', { path: 'dir', content: 'x' }))).toBe(
      "'dir' is a directory, not a file; use list_files to see inside it",
    );
  });
});
