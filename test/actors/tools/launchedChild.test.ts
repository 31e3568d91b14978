/**
 * A launcher such as bubblewrap starts the command in a session of its own, where a kill of the
 * launcher's process group does not reach. These tests stand in for bubblewrap with a small shell
 * script that does the same (`setsid`), and reports its child on descriptor 3 as `--info-fd` does
 * — after a pause, so a cancel can arrive before it has said which process that is.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { killQuietly } from '../../../src/actors/tools/builtins/launchedChild.js';
import { runShellCommand } from '../../../src/actors/tools/builtins/runShellCommand.js';
import { GONE_WITHIN_MS, processesWith, uniqueSleep, until } from './processes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();

/** Runs the command (`"$@"`) in a new session, then says which process it is: `REPORT` if set. */
const LAUNCHER = [
  'sh',
  '-c',
  [
    'setsid "$@" &',
    'sleep 0.3',
    'printf \'{\\n    "child-pid": %s,\\n    "net-namespace": 1\\n}\\n\' "${REPORT:-$!}" >&3',
    'exec 3>&-',
    'wait',
  ].join('\n'),
  'launcher',
];

/** Starts `sleep` through the launcher and cancels it as soon as the sleep runs. */
async function cancelAtStart(options: { childPidFd?: number; report?: number }) {
  const sleep = uniqueSleep();
  const controller = new AbortController();
  const pending = runShellCommand(sleep, {
    cwd: await dirs.make(),
    timeoutMs: 60_000,
    maxOutputBytes: 1_000,
    signal: controller.signal,
    launcher: LAUNCHER,
    env: { ...process.env, ...(options.report ? { REPORT: String(options.report) } : {}) },
    ...(options.childPidFd === undefined ? {} : { childPidFd: options.childPidFd }),
  });
  const started = await until(() => processesWith(sleep, 'start').length === 1, GONE_WITHIN_MS);
  expect(started).toBe(true);
  const [inner] = processesWith(sleep, 'start');
  onTestFinished(() => {
    for (const pid of processesWith(sleep)) killQuietly(pid);
  });
  controller.abort();
  await expect(pending).rejects.toThrow('cancelled: the command was killed before it finished');
  return { sleep, inner: inner! };
}

describe('runShellCommand with a launcher that reports its child', () => {
  it('kills the child a kill of the group cannot reach, even when cancelled before the launcher said which it is', async () => {
    const { sleep } = await cancelAtStart({ childPidFd: 3 });
    expect(await until(() => processesWith(sleep).length === 0, GONE_WITHIN_MS)).toBe(true);
  });

  it('(without the report, the group kill leaves that child running: what the report is for)', async () => {
    const { sleep, inner } = await cancelAtStart({});
    // Long enough for the launcher's pause to pass: nothing more is coming for the child.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(processesWith(sleep, 'start')).toEqual([inner]);
  });

  it('leaves alone a reported process that is not the launcher child', async () => {
    const bystander = spawn('sleep', [uniqueSleep().split(' ')[1]!], { stdio: 'ignore' });
    onTestFinished(() => void bystander.kill('SIGKILL'));
    const { sleep } = await cancelAtStart({ childPidFd: 3, report: bystander.pid! });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
    // Its own child, never named, is out of reach as before.
    expect(processesWith(sleep, 'start')).toHaveLength(1);
  });
});
