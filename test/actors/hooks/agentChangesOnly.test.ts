/**
 * The auto-commit of a turn commits what the agent's tools changed and nothing of the user's:
 * the real built-in tools run in a real repository where the user has work in progress, and the
 * hook gets the paths their outcomes report, as the chart hands them over.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAutoCommit } from '../../../src/actors/hooks/gitAutoCommit.js';
import { createBuiltinTools } from '../../../src/actors/tools/builtins/createBuiltinTools.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { changedPathsOf } from '../../../src/machine/changedPathsOf.js';
import type { ToolCall } from '../../../src/machine/messages.js';
import { useTempDirs } from '../tools/tempDir.js';
import { initRepository } from './gitRepository.js';

const dirs = useTempDirs();
// The sandbox confines where bash writes, not what git sees afterwards: it is left out here.
const registry = createToolRegistry(createBuiltinTools({ bash: { sandbox: false } }));

/**
 * A repository where the user, before the agent's turn, has modified `mine.txt`, staged a change
 * to `staged.txt`, and left `notes.txt`, `.env` and an ignored `debug.log` untracked.
 */
async function userWorkInProgress() {
  const workspace = await dirs.make('agent-turn-');
  const repository = await initRepository(workspace, {
    'mine.txt': 'mine\n',
    'staged.txt': 'staged\n',
    'shared.txt': 'shared\n',
    '.gitignore': '*.log\n',
  });
  await writeFile(join(workspace, 'mine.txt'), 'mine, edited by the user\n');
  await writeFile(join(workspace, 'staged.txt'), 'staged by the user\n');
  repository.git('add', 'staged.txt');
  await writeFile(join(workspace, 'notes.txt'), 'the user’s notes\n');
  await writeFile(join(workspace, '.env'), 'API_KEY=secret\n');
  await writeFile(join(workspace, 'debug.log'), 'ignored\n');
  const statusBefore = repository.git('status', '--porcelain', '--untracked-files=all');

  /** Runs the calls as one response does; returns the hook's input built from their outcomes. */
  async function runCalls(...calls: Omit<ToolCall, 'id'>[]) {
    const runs = await Promise.all(
      calls.map(async (call, index) => {
        const withId = { ...call, id: `toolu_${index}` };
        return { call: withId, outcome: await runToolCall(registry, withId, { workspace }) };
      }),
    );
    for (const run of runs) expect(run.outcome.status).toBe('success');
    return {
      workspace,
      completedTools: runs.map((run) => ({ name: run.call.name, succeeded: true })),
      changedPaths: changedPathsOf(runs.map((run) => ({ ...run, status: 'done' as const }))),
      env: repository.env,
    };
  }

  /** The calls, then the hook. */
  async function turn(...calls: Omit<ToolCall, 'id'>[]) {
    const hookInput = await runCalls(...calls);
    return {
      changedPaths: hookInput.changedPaths,
      hookInput,
      result: await gitAutoCommit(hookInput),
    };
  }

  /** The paths of the last commit. */
  const committed = () =>
    repository.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n');
  return { workspace, ...repository, statusBefore, runCalls, turn, committed };
}

describe('auto-commit of an agent turn', () => {
  it("commits the file write_file wrote and none of the user's dirty, staged or untracked files", async () => {
    const { turn, committed, git, statusBefore } = await userWorkInProgress();
    const { changedPaths, result } = await turn({
      name: 'write_file',
      input: { path: 'b.txt', content: 'from the agent\n' },
    });
    expect(changedPaths).toEqual(['b.txt']);
    expect(result.commit?.files).toEqual(['b.txt']);
    expect(committed()).toEqual(['b.txt']);
    // The user's work in progress is exactly as it was: mine.txt modified, staged.txt still
    // staged, notes.txt and .env untracked.
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
    expect(statusBefore).toContain('M  staged.txt');
    expect(statusBefore).toContain('?? .env');
  });

  it('leaves out a file the user was already changing, even when the agent edits it too', async () => {
    const { turn, workspace, git } = await userWorkInProgress();
    const { changedPaths, result } = await turn(
      {
        name: 'edit_file',
        input: { path: 'mine.txt', old_string: 'by the user', new_string: 'by both' },
      },
      {
        name: 'edit_file',
        input: { path: 'shared.txt', old_string: 'shared', new_string: 'ours' },
      },
    );
    expect(changedPaths).toEqual(['shared.txt']);
    expect(result.commit?.files).toEqual(['shared.txt']);
    expect(await readFile(join(workspace, 'mine.txt'), 'utf8')).toBe('mine, edited by both\n');
    expect(git('status', '--porcelain', '--', 'mine.txt')).toBe(' M mine.txt\n');
  });

  it('commits a file bash created, and not the ignored file it wrote beside it', async () => {
    const { turn, committed, git } = await userWorkInProgress();
    const { changedPaths, result } = await turn({
      name: 'bash',
      input: { command: 'mkdir -p src && echo made > src/new.txt && echo more >> debug.log' },
    });
    expect(changedPaths).toEqual(['src/new.txt']);
    expect(result.actionTaken).toBe(true);
    expect(committed()).toEqual(['src/new.txt']);
    expect(git('ls-files', 'debug.log')).toBe('');
  });

  it("commits the hundreds of files one command made, and still none of the user's", async () => {
    const { turn, committed, git, statusBefore } = await userWorkInProgress();
    const { changedPaths, result } = await turn({
      name: 'bash',
      input: { command: 'mkdir out && for i in $(seq 1 250); do echo $i > out/f$i.txt; done' },
    });
    expect(changedPaths).toHaveLength(250);
    expect(result.commit?.files).toHaveLength(250);
    expect(committed()).toHaveLength(250);
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
  });

  it('does not commit a file bash changed that was dirty before the turn', async () => {
    const { turn, git, statusBefore } = await userWorkInProgress();
    const head = git('rev-parse', 'HEAD');
    const { changedPaths, result } = await turn({
      name: 'bash',
      input: { command: 'echo appended >> mine.txt && echo appended >> notes.txt' },
    });
    expect(changedPaths).toEqual([]);
    expect(result).toEqual({ actionTaken: false, skipped: 'no-changes' });
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
  });

  it('commits a tracked file bash deleted', async () => {
    const { turn, git } = await userWorkInProgress();
    const { result } = await turn({ name: 'bash', input: { command: 'rm shared.txt' } });
    expect(result.commit?.files).toEqual(['shared.txt']);
    expect(git('ls-files', 'shared.txt')).toBe('');
  });

  it('never commits an ignored file, even when a tool reports it', async () => {
    const { workspace, env, git } = await userWorkInProgress();
    const head = git('rev-parse', 'HEAD');
    const result = await gitAutoCommit({
      workspace,
      completedTools: [{ name: 'bash', succeeded: true }],
      changedPaths: ['debug.log'],
      env,
    });
    expect(result).toEqual({ actionTaken: false, skipped: 'no-changes' });
    expect(git('rev-parse', 'HEAD')).toBe(head);
  });

  it('commits nothing when run again after it committed (a resume after a crash)', async () => {
    const { turn, git } = await userWorkInProgress();
    const { hookInput, result } = await turn({
      name: 'write_file',
      input: { path: 'b.txt', content: 'from the agent\n' },
    });
    expect(result.actionTaken).toBe(true);
    const head = git('rev-parse', 'HEAD');
    expect(await gitAutoCommit(hookInput)).toEqual({ actionTaken: false, skipped: 'no-changes' });
    expect(git('rev-parse', 'HEAD')).toBe(head);
  });

  it('commits what a crash left staged between staging and committing, and nothing more', async () => {
    const { runCalls, git, committed } = await userWorkInProgress();
    const hookInput = await runCalls({
      name: 'write_file',
      input: { path: 'b.txt', content: 'from the agent\n' },
    });
    git('add', 'b.txt'); // where a hook that crashed before committing stopped
    const result = await gitAutoCommit(hookInput);
    expect(result.commit?.files).toEqual(['b.txt']);
    expect(committed()).toEqual(['b.txt']);
    expect(git('diff', '--cached', '--name-only')).toBe('staged.txt\n');
  });
});
