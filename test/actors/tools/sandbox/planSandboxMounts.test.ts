import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bwrapArguments,
  SANDBOX_BASE_ARGUMENTS,
} from '../../../../src/actors/tools/sandbox/bwrapArguments.js';
import {
  planSandboxMounts,
  type SandboxMount,
} from '../../../../src/actors/tools/sandbox/planSandboxMounts.js';
import { useTempDirs } from '../tempDir.js';

const dirs = useTempDirs();
const none = { denyRead: [], allowRead: [], allowWrite: [] };

/**
 * base/
 *   home/            the home directory, with .ssh/ and .netrc
 *   hidden/ws/       the workspace
 *     .env
 *   elsewhere -> hidden
 */
async function layout() {
  const base = await dirs.make();
  const home = join(base, 'home');
  const ws = join(base, 'hidden', 'ws');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(home, '.netrc'), '');
  await mkdir(ws, { recursive: true });
  await writeFile(join(ws, '.env'), '');
  await symlink('hidden', join(base, 'elsewhere'));
  return { base, home, ws };
}

/** The mounts below `base`, as `kind path` lines relative to it. */
function below(base: string, mounts: SandboxMount[]): string[] {
  return mounts
    .filter((mount) => mount.path.startsWith(`${base}/`))
    .map((mount) => `${mount.kind} ${mount.path.slice(base.length + 1)}`);
}

describe('planSandboxMounts', () => {
  it('puts outer paths first, so the most specific one wins', async () => {
    const { base, home, ws } = await layout();
    const mounts = await planSandboxMounts(
      ws,
      { ...none, denyRead: [join(base, 'hidden'), join(ws, '.env')] },
      home,
    );
    expect(below(base, mounts)).toEqual([
      'hide hidden',
      'hide home/.ssh',
      'hide home/.netrc',
      'write hidden/ws',
      'hide hidden/ws/.env',
    ]);
  });

  it('replaces the host temp directories and hides the sockets of /run', async () => {
    const { home, ws } = await layout();
    const mounts = await planSandboxMounts(ws, none, home);
    expect(mounts.filter((mount) => mount.path === '/tmp' || mount.path === '/run')).toEqual([
      { kind: 'temp', path: '/tmp', directory: true },
      { kind: 'hide', path: '/run', directory: true },
    ]);
  });

  it('keeps the home directory readable when it lies in a hidden directory', async () => {
    const { base, home, ws } = await layout();
    const mounts = await planSandboxMounts(ws, { ...none, denyRead: [base] }, home);
    expect(mounts.find((mount) => mount.path === base)?.kind).toBe('hide');
    expect(below(base, mounts)).toEqual([
      'read home',
      'hide home/.ssh',
      'hide home/.netrc',
      'write hidden/ws',
    ]);
  });

  it('hides the real place of a linked path, and leaves out paths that do not exist', async () => {
    const { base, home, ws } = await layout();
    const mounts = await planSandboxMounts(
      ws,
      { ...none, denyRead: [join(base, 'elsewhere'), join(base, 'missing')] },
      home,
    );
    expect(below(base, mounts)).toContain('hide hidden');
    expect(below(base, mounts).join('\n')).not.toMatch(/elsewhere|missing/);
  });

  it('lets the stronger grant win at one path, and expands ~', async () => {
    const { base, home, ws } = await layout();
    const mounts = await planSandboxMounts(
      ws,
      { denyRead: [ws], allowRead: ['~/.ssh'], allowWrite: ['~/.ssh'] },
      home,
    );
    expect(below(base, mounts)).toEqual(['write home/.ssh', 'hide home/.netrc', 'write hidden/ws']);
  });

  it("pins the workspace's .git and keeps its config, hooks and submodules read-only", async () => {
    const { base, home, ws } = await layout();
    await mkdir(join(ws, '.git', 'modules'), { recursive: true });
    await writeFile(join(ws, '.git', 'config'), '');
    const mounts = await planSandboxMounts(ws, none, home);
    expect(below(base, mounts).filter((line) => line.includes('.git'))).toEqual([
      'write hidden/ws/.git',
      'read hidden/ws/.git/config',
      'hide hidden/ws/.git/hooks',
      'read hidden/ws/.git/modules',
    ]);
  });
});

describe('bwrapArguments', () => {
  it('mounts in order, covers hidden files, and makes /proc and hidden directories read-only last', () => {
    const mounts: SandboxMount[] = [
      { kind: 'temp', path: '/tmp', directory: true },
      { kind: 'hide', path: '/home', directory: true },
      { kind: 'read', path: '/home/ada', directory: true },
      { kind: 'hide', path: '/home/ada/.netrc', directory: false },
      { kind: 'write', path: '/home/ada/repo', directory: true },
      { kind: 'read', path: '/tmp/.net', source: '/tmp/host-dir', directory: true },
    ];
    expect(bwrapArguments('/home/ada/repo', mounts)).toEqual([
      ...SANDBOX_BASE_ARGUMENTS,
      ...['--tmpfs', '/tmp'],
      ...['--tmpfs', '/home'],
      ...['--ro-bind', '/home/ada', '/home/ada'],
      ...['--ro-bind', '/dev/null', '/home/ada/.netrc'],
      ...['--bind', '/home/ada/repo', '/home/ada/repo'],
      ...['--ro-bind', '/tmp/host-dir', '/tmp/.net'],
      ...['--remount-ro', '/proc'],
      ...['--remount-ro', '/home'],
      ...['--chdir', '/home/ada/repo', '--'],
    ]);
  });

  it('drops every capability and unshares every namespace, network included', () => {
    expect(SANDBOX_BASE_ARGUMENTS).toEqual(
      expect.arrayContaining(['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent']),
    );
    expect(SANDBOX_BASE_ARGUMENTS).not.toContain('--share-net');
  });
});
