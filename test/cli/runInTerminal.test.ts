/**
 * `agent-statechart run` in a real terminal (a pty), driven with keystrokes: Ctrl-C at an
 * approval question, at the model's own question, at the idle prompt, and a workspace that does
 * not exist.
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { Terminal } from './terminal.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** Concurrent tests must register their cleanups through their own context. */
type Finally = (cleanup: OnTestFinishedHandler) => void;

/** A git workspace, deleted when the test ends. */
async function gitWorkspace(onTestFinished: Finally): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), 'run-terminal-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
  onTestFinished(() => rm(workspace, { recursive: true, force: true }));
  return workspace;
}

/** The command in a terminal, ended when the test ends. */
function terminal(args: string[], onTestFinished: Finally): Terminal {
  const started = new Terminal(args);
  onTestFinished(async () => {
    started.kill();
    await started.exited;
  });
  return started;
}

describe.concurrent('agent-statechart run in a terminal', () => {
  it('withdraws an approval question on Ctrl-C: the call is answered as interrupted and the next line is a message, not the answer', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = terminal(['run', '--workspace', workspace], onTestFinished);
    await run.expect('you> ');
    run.type('run touch made-it.txt\n');
    await run.expect('allow bash {"command":"touch made-it.txt"}? [y]es / [n]o [why] / [a]lways ');
    run.ctrlC();
    await run.expect('✗ bash: interrupted');
    await run.expect('[WaitingForUserInput]');
    await run.expect('you> ');
    // Taken as the answer, this "y" would run the command.
    run.type('y\n');
    await run.expect('offline model> I am the offline scripted model');
    await run.expect('you> ');
    run.type('/quit\n');
    expect(await run.exited).toBe(0);
    await expect(access(join(workspace, 'made-it.txt'))).rejects.toThrow();
    expect(run.output).not.toContain('✓ bash');
  });

  it('withdraws the model’s question on Ctrl-C: the call is answered as interrupted and the next line is a message, not the answer', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = terminal(['run', '--workspace', workspace], onTestFinished);
    await run.expect('you> ');
    run.type('ask Which database? PostgreSQL | SQLite\n');
    await run.expect('  ? [Question] Which database?\n    1. PostgreSQL\n    2. SQLite\n');
    await run.expect('answer> ');
    run.ctrlC();
    await run.expect(
      '✗ ask_user: interrupted: the user interrupted the turn without answering these questions',
    );
    await run.expect('[WaitingForUserInput]');
    await run.expect('you> ');
    // Taken as the answer, this "2" would pick SQLite.
    run.type('2\n');
    await run.expect('offline model> I am the offline scripted model');
    await run.expect('you> ');
    run.type('/quit\n');
    expect(await run.exited).toBe(0);
    expect(run.output).not.toContain('→ SQLite');
  });

  it('on Ctrl-C during a command, says how the command ended before it prompts again', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = terminal(
      ['run', '--workspace', workspace, '--mode', 'bypassPermissions'],
      onTestFinished,
    );
    await run.expect('you> ');
    run.type('run sleep 30\n');
    await run.expect('⚙ bash {"command":"sleep 30"}');
    run.ctrlC();
    await run.expect('interrupted by Ctrl-C');
    await run.expect('✗ bash: interrupted');
    await run.expect('you> ');
    // The prompt is the last thing shown: nothing of the turn comes after it.
    const afterCtrlC = run.output.slice(run.output.lastIndexOf('interrupted by Ctrl-C'));
    expect(afterCtrlC.indexOf('✗ bash: interrupted')).toBeLessThan(afterCtrlC.indexOf('you> '));
    expect(afterCtrlC.endsWith('you> ')).toBe(true);
    run.type('/quit\n');
    expect(await run.exited).toBe(0);
  });

  it('says how to quit on Ctrl-C at the idle prompt, and quits on a second one', async ({
    onTestFinished,
  }) => {
    const run = terminal(
      ['run', '--workspace', await gitWorkspace(onTestFinished)],
      onTestFinished,
    );
    await run.expect('you> ');
    run.ctrlC();
    await run.expect('(to quit, press Ctrl-C again or type /quit)\nyou> ');
    // A line in between starts over: the next Ctrl-C only reminds again.
    run.type('list files\n');
    await run.expect('✓ list_files');
    await run.expect('you> ');
    run.ctrlC();
    await run.expect('(to quit, press Ctrl-C again or type /quit)\nyou> ');
    run.ctrlC();
    await run.expect('[ShuttingDown]');
    expect(await run.exited).toBe(0);
  });

  it('refuses a workspace that does not exist, before starting anything', async () => {
    const missing = join(tmpdir(), 'agent-statechart-no-such-workspace');
    const failure = await exec(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'run', '--workspace', missing],
      { cwd: root, env: { ...process.env, ANTHROPIC_API_KEY: '' } },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(1);
    expect(failure.stderr.trim()).toBe(
      `workspace root '${missing}' does not exist; create it or point the agent at an existing directory`,
    );
    expect(failure.stdout).toBe('');
  });
});
