import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCommitMessage } from '../../../src/actors/hooks/formatCommitMessage.js';
import {
  type GitAutoCommitOptions,
  gitAutoCommit,
} from '../../../src/actors/hooks/gitAutoCommit.js';
import { useTempDirs } from '../tools/tempDir.js';
import { initRepository, isolatedGitEnv } from './gitRepository.js';

const dirs = useTempDirs();

/** A repository with one commit (a.txt, .gitignore ignoring *.log) and no identity configured. */
async function repo(options: { commit?: boolean } = {}) {
  const workspace = await dirs.make('git-hook-');
  const { env, git } = await initRepository(
    workspace,
    { 'a.txt': 'first\n', '.gitignore': '*.log\n' },
    options,
  );
  const hook = (overrides: Partial<GitAutoCommitOptions> = {}) =>
    gitAutoCommit({
      workspace,
      completedTools: [{ name: 'edit_file', succeeded: true }],
      changedPaths: ['a.txt'],
      env,
      ...overrides,
    });
  return { workspace, env, hook, git };
}

describe('gitAutoCommit', () => {
  it('commits the modified and new files the tools reported, naming the tools and files', async () => {
    const { workspace, hook, git } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    await writeFile(join(workspace, 'new.txt'), 'new\n');
    await writeFile(join(workspace, 'debug.log'), 'ignored\n');

    const result = await hook({
      completedTools: [
        { name: 'read_file', succeeded: true },
        { name: 'edit_file', succeeded: true },
        { name: 'write_file', succeeded: true },
        { name: 'edit_file', succeeded: true },
        { name: 'bash', succeeded: false },
      ],
      changedPaths: ['a.txt', 'new.txt', 'debug.log'],
    });

    expect(result.actionTaken).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.commit?.files).toEqual(['a.txt', 'new.txt']);
    expect(result.commit?.message.split('\n')[0]).toBe(
      'agent: edit_file, write_file changed a.txt, new.txt',
    );
    expect(result.commit?.message).not.toContain('bash');
    expect(result.commit?.sha).toBe(git('rev-parse', 'HEAD').trim());
    expect(git('log', '-1', '--format=%B').trim()).toBe(result.commit?.message.trim());
    expect(git('status', '--porcelain')).toBe('');
    expect(git('show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual([
      'a.txt',
      'new.txt',
    ]);
  });

  it('commits deletions too', async () => {
    const { workspace, hook, git } = await repo();
    await rm(join(workspace, 'a.txt'));
    const result = await hook({ completedTools: [{ name: 'bash', succeeded: true }] });
    expect(result.commit?.files).toEqual(['a.txt']);
    expect(git('ls-files').trim()).toBe('.gitignore');
  });

  it('works with no user.name or user.email configured, committing as agent-statechart', async () => {
    const { workspace, hook, git } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    expect((await hook()).actionTaken).toBe(true);
    expect(git('log', '-1', '--format=%an <%ae>').trim()).toBe(
      'agent-statechart <agent-statechart@localhost>',
    );
  });

  it("uses the repository's identity when it has one, and the identity option over both", async () => {
    const { workspace, hook, git } = await repo();
    git('config', 'user.name', 'Repo Owner');
    git('config', 'user.email', 'owner@example.com');
    await writeFile(join(workspace, 'a.txt'), 'one\n');
    await hook();
    expect(git('log', '-1', '--format=%an <%ae>').trim()).toBe('Repo Owner <owner@example.com>');

    await writeFile(join(workspace, 'a.txt'), 'two\n');
    await hook({ identity: { name: 'Bot', email: 'bot@example.com' } });
    expect(git('log', '-1', '--format=%an <%ae>').trim()).toBe('Bot <bot@example.com>');
  });

  it('makes the first commit of a repository that has none', async () => {
    const { hook, git } = await repo({ commit: false });
    const result = await hook({ changedPaths: ['a.txt', '.gitignore'] });
    expect(result.commit?.files).toEqual(['.gitignore', 'a.txt']);
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it('names files from the repository root when the workspace is a subdirectory of it', async () => {
    const { workspace, env, git } = await repo();
    const sub = join(workspace, 'pkg');
    await mkdir(sub);
    await writeFile(join(sub, 'inside.txt'), 'in\n');
    await writeFile(join(workspace, 'outside.txt'), 'out\n');
    const result = await gitAutoCommit({
      workspace: sub,
      completedTools: [{ name: 'write_file', succeeded: true }],
      changedPaths: ['inside.txt', '../outside.txt'],
      env,
    });
    expect(result.commit?.files).toEqual(['pkg/inside.txt']);
    expect(git('status', '--porcelain').trim()).toBe('?? outside.txt');
  });

  it("skips the repository's pre-commit hook by default, and runs it with runHooks", async () => {
    const { workspace, hook } = await repo();
    const preCommit = join(workspace, '.git', 'hooks', 'pre-commit');
    await writeFile(preCommit, '#!/bin/sh\necho "hook says no" >&2\nexit 1\n');
    await chmod(preCommit, 0o755);
    await writeFile(join(workspace, 'a.txt'), 'one\n');
    expect((await hook()).actionTaken).toBe(true);

    await writeFile(join(workspace, 'a.txt'), 'two\n');
    const withHooks = await hook({ runHooks: true });
    expect(withHooks.actionTaken).toBe(false);
    expect(withHooks.error).toContain('hook says no');
  });

  it('skips with no-mutation when no mutating tool succeeded, even with changes present', async () => {
    const { workspace, hook, git } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    const result = await hook({
      completedTools: [
        { name: 'read_file', succeeded: true },
        { name: 'edit_file', succeeded: false },
      ],
    });
    expect(result).toEqual({ actionTaken: false, skipped: 'no-mutation' });
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it('asks the isMutating predicate which tools change the workspace', async () => {
    const { workspace, hook } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    const isMutating = (name: string) => name === 'deploy';
    expect(await hook({ isMutating })).toEqual({ actionTaken: false, skipped: 'no-mutation' });
    const result = await hook({
      isMutating,
      completedTools: [{ name: 'deploy', succeeded: true }],
    });
    expect(result.actionTaken).toBe(true);
    expect(result.commit?.message).toContain('agent: deploy changed a.txt');
  });

  it('skips with not-a-repo outside a git repository', async () => {
    const workspace = await dirs.make('no-repo-');
    await writeFile(join(workspace, 'a.txt'), 'x');
    const result = await gitAutoCommit({
      workspace,
      completedTools: [{ name: 'write_file', succeeded: true }],
      changedPaths: ['a.txt'],
      env: isolatedGitEnv(dirname(workspace)),
    });
    expect(result).toEqual({ actionTaken: false, skipped: 'not-a-repo' });
  });

  it('skips with no-changes when no reported path is uncommitted, ignored files included', async () => {
    const { workspace, hook } = await repo();
    await writeFile(join(workspace, 'build.log'), 'ignored\n');
    expect(await hook({ changedPaths: ['a.txt', 'build.log'] })).toEqual({
      actionTaken: false,
      skipped: 'no-changes',
    });
    expect(await hook({ changedPaths: [] })).toEqual({ actionTaken: false, skipped: 'no-changes' });
  });

  it('fails open with an error when the repository is corrupted', async () => {
    const { workspace, hook } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    await writeFile(join(workspace, '.git', 'index'), 'not an index');
    const result = await hook();
    expect(result.actionTaken).toBe(false);
    expect(result.skipped).toBeUndefined();
    expect(result.error).toMatch(/^git status failed \(exit 128\): .*index/);
  });

  it('fails open with an error when the workspace does not exist', async () => {
    const base = await dirs.make();
    const result = await gitAutoCommit({
      workspace: join(base, 'missing'),
      completedTools: [{ name: 'edit_file', succeeded: true }],
      changedPaths: ['a.txt'],
    });
    expect(result.actionTaken).toBe(false);
    expect(result.error).toContain('is not a directory');
  });

  it('fails open when git itself cannot be found', async () => {
    const { workspace, env, hook } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    const result = await hook({ env: { ...env, PATH: join(workspace, 'no-bin') } });
    expect(result.actionTaken).toBe(false);
    expect(result.error).toContain('ENOENT');
  });

  it('fails open, without committing, when the signal is already aborted', async () => {
    const { workspace, hook, git } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    const result = await hook({ signal: AbortSignal.abort() });
    expect(result.actionTaken).toBe(false);
    expect(result.error).toBeTruthy();
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it('fails open when a caller-supplied function throws', async () => {
    const { workspace, hook } = await repo();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    const result = await hook({
      formatMessage: () => {
        throw new Error('formatter broke');
      },
    });
    expect(result).toEqual({ actionTaken: false, error: 'formatter broke' });
  });
});

describe('formatCommitMessage', () => {
  it('names the tools and the files in the subject and lists the files in the body', () => {
    expect(formatCommitMessage({ tools: ['edit_file', 'bash'], files: ['a.txt', 'b.txt'] })).toBe(
      'agent: edit_file, bash changed a.txt, b.txt\n\nTools: edit_file, bash\nFiles:\n- a.txt\n- b.txt\n',
    );
  });

  it('keeps the subject within 72 characters, counting the files it leaves out', () => {
    const files = Array.from({ length: 30 }, (_, index) => `src/module${index}.ts`);
    const message = formatCommitMessage({ tools: ['write_file'], files });
    const subject = message.split('\n')[0] ?? '';
    expect(subject.length).toBeLessThanOrEqual(72);
    expect(subject).toMatch(/^agent: write_file changed src\/module0\.ts, .* and \d+ more$/);
    expect(message).toContain('- src/module29.ts');
  });
});
