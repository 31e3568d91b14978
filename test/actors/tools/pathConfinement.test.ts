import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentStatechartError } from '../../../src/index.js';
import { createBuiltinTools } from '../../../src/actors/tools/builtins/createBuiltinTools.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { resolveInWorkspace } from '../../../src/actors/tools/resolveInWorkspace.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { errorMessage, successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const registry = createToolRegistry(createBuiltinTools());

/**
 * base/
 *   outside/secret.txt        not part of the workspace
 *   ws/                       the workspace
 *     a.txt
 *     sub/b.txt
 *     leak.txt -> ../outside/secret.txt
 *     outdir   -> ../outside
 *     inner    -> sub           (stays inside)
 *     broken   -> ../outside/missing.txt
 *   ws-link -> ws              (the workspace reached through a link)
 */
async function layout() {
  const base = await dirs.make();
  const outside = join(base, 'outside');
  const ws = join(base, 'ws');
  await mkdir(outside);
  await mkdir(join(ws, 'sub'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), 'SECRET');
  await writeFile(join(ws, 'a.txt'), 'inside');
  await writeFile(join(ws, 'sub', 'b.txt'), 'deeper');
  await symlink('../outside/secret.txt', join(ws, 'leak.txt'));
  await symlink('../outside', join(ws, 'outdir'));
  await symlink('sub', join(ws, 'inner'));
  await symlink('../outside/missing.txt', join(ws, 'broken'));
  await symlink('ws', join(base, 'ws-link'));
  return { base, outside, ws };
}

function run(workspace: string, name: string, input: unknown) {
  return runToolCall(registry, { id: 'c1', name, input }, { workspace });
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('workspace confinement of the built-in tools', () => {
  it("refuses a '..' escape", async () => {
    const { ws } = await layout();
    const message = errorMessage(await run(ws, 'read_file', { path: '../outside/secret.txt' }));
    expect(message).toBe(
      "path '../outside/secret.txt' leaves the workspace root through '..'; give a path inside the workspace",
    );
  });

  it('refuses an absolute path and says to use a relative one', async () => {
    const { ws } = await layout();
    const message = errorMessage(await run(ws, 'read_file', { path: '/etc/passwd' }));
    expect(message).toContain("path '/etc/passwd' is absolute");
    expect(message).toContain('relative to the workspace root');
  });

  it('refuses an absolute path even when it points inside the workspace', async () => {
    const { ws } = await layout();
    expect(errorMessage(await run(ws, 'read_file', { path: join(ws, 'a.txt') }))).toContain(
      'is absolute',
    );
  });

  it('refuses a symbolic link to a file outside', async () => {
    const { ws, outside } = await layout();
    const message = errorMessage(await run(ws, 'read_file', { path: 'leak.txt' }));
    expect(message).toContain('symbolic link');
    expect(message).toContain(join(outside, 'secret.txt'));
    expect(message).not.toContain('SECRET');
  });

  it('refuses reading and listing through a linked directory that points outside', async () => {
    const { ws } = await layout();
    expect(errorMessage(await run(ws, 'read_file', { path: 'outdir/secret.txt' }))).toContain(
      'outside the workspace root',
    );
    expect(errorMessage(await run(ws, 'list_files', { path: 'outdir' }))).toContain(
      'outside the workspace root',
    );
  });

  it('refuses creating a new file, and new directories, inside a linked directory that leaves the root', async () => {
    const { ws, outside } = await layout();
    const direct = await run(ws, 'write_file', { path: 'outdir/new.txt', content: 'x' });
    const nested = await run(ws, 'write_file', { path: 'outdir/n1/n2/new.txt', content: 'x' });
    expect(errorMessage(direct)).toContain('outside the workspace root');
    expect(errorMessage(nested)).toContain('outside the workspace root');
    expect(await exists(join(outside, 'new.txt'))).toBe(false);
    expect(await exists(join(outside, 'n1'))).toBe(false);
  });

  it('refuses editing through a link that leaves the root, leaving the target unchanged', async () => {
    const { ws, outside } = await layout();
    const outcome = await run(ws, 'edit_file', {
      path: 'leak.txt',
      old_string: 'SECRET',
      new_string: 'pwned',
    });
    expect(errorMessage(outcome)).toContain('outside the workspace root');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('SECRET');
  });

  it('refuses writing through a broken link, whose target could be anywhere', async () => {
    const { ws, outside } = await layout();
    const outcome = await run(ws, 'write_file', { path: 'broken', content: 'x' });
    expect(errorMessage(outcome)).toContain('broken symbolic link');
    expect(await exists(join(outside, 'missing.txt'))).toBe(false);
  });

  it("checks 'link/..' as written, so the OS cannot resolve it to a place outside", async () => {
    const { ws } = await layout();
    // The OS would read base/outside/secret.txt through outdir/..; the normalised path is ws/outside/secret.txt.
    const outcome = await run(ws, 'read_file', { path: 'outdir/../outside/secret.txt' });
    expect(errorMessage(outcome)).toContain('no such file or directory');
  });

  it('allows links and .. that stay inside the workspace', async () => {
    const { ws } = await layout();
    expect(successOutput(await run(ws, 'read_file', { path: 'inner/b.txt' }))).toBe('deeper');
    expect(successOutput(await run(ws, 'read_file', { path: 'sub/../a.txt' }))).toBe('inside');
    await run(ws, 'write_file', { path: 'inner/new.txt', content: 'via link' });
    expect(await readFile(join(ws, 'sub', 'new.txt'), 'utf8')).toBe('via link');
  });

  it('works when the workspace root itself is reached through a link', async () => {
    const { base } = await layout();
    const workspace = join(base, 'ws-link');
    expect(successOutput(await run(workspace, 'read_file', { path: 'a.txt' }))).toBe('inside');
    expect(errorMessage(await run(workspace, 'read_file', { path: 'leak.txt' }))).toContain(
      'outside the workspace root',
    );
  });

  it('reports a workspace root that does not exist', async () => {
    const { base } = await layout();
    const message = errorMessage(await run(join(base, 'nope'), 'read_file', { path: 'a.txt' }));
    expect(message).toContain('does not exist');
  });
});

describe('resolveInWorkspace', () => {
  it('throws AgentStatechartError with code PATH_OUTSIDE_WORKSPACE for each kind of escape', async () => {
    const { ws } = await layout();
    for (const path of ['../x', '/etc/passwd', 'leak.txt', 'outdir/new.txt', 'broken']) {
      const error = await resolveInWorkspace(ws, path).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, path).toBeInstanceOf(AgentStatechartError);
      expect((error as AgentStatechartError).code, path).toBe('PATH_OUTSIDE_WORKSPACE');
    }
  });

  it('returns the real path and the display path of a file that does not exist yet', async () => {
    const { ws } = await layout();
    expect(await resolveInWorkspace(ws, 'inner/x/y.txt')).toEqual({
      root: ws,
      absolute: join(ws, 'sub', 'x', 'y.txt'),
      display: 'inner/x/y.txt',
    });
    expect((await resolveInWorkspace(ws, '.')).display).toBe('.');
  });
});
