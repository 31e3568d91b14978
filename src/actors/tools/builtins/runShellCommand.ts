import { spawn } from 'node:child_process';
import { collectOutput } from './collectOutput.js';
import { killQuietly, watchLaunchedChild } from './launchedChild.js';

/**
 * How to run a shell command.
 *
 * @example
 * const options: ShellCommandOptions = { cwd: '/repo', timeoutMs: 10_000, maxOutputBytes: 30_000 };
 */
export interface ShellCommandOptions {
  /** Working directory. */
  cwd: string;
  /** Kill the command (and everything it started) after this many milliseconds. */
  timeoutMs: number;
  /** Output kept, stdout and stderr together; the middle of longer output is dropped. */
  maxOutputBytes: number;
  /** Aborting kills the command and everything it started; the promise then rejects. */
  signal?: AbortSignal;
  /** Environment of the command. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * A program that runs the shell for us, such as a sandbox: `[...launcher, 'bash', '-c', command]`
   * is run instead of bash itself. Default: none.
   */
  launcher?: readonly string[];
  /**
   * The launcher writes `{"child-pid": N}` to this file descriptor (bubblewrap's `--info-fd`):
   * process N is the one whose end ends everything the launcher started, so it is killed along
   * with the launcher, and not before the launcher has said which it is. Default: none.
   */
  childPidFd?: number;
}

/**
 * How a shell command ended.
 *
 * @example
 * const result: ShellCommandResult = { output: 'hi\n', exitCode: 0, signal: null, timedOut: false, droppedBytes: 0 };
 */
export interface ShellCommandResult {
  /** stdout and stderr interleaved as they arrived, possibly shortened (see `droppedBytes`). */
  output: string;
  /** The exit code, or null when the command was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the command, if any. */
  signal: NodeJS.Signals | null;
  /** Whether the timeout killed it. */
  timedOut: boolean;
  /** Bytes of output dropped from the middle. */
  droppedBytes: number;
}

/** After the shell exits, how long to wait for escaped processes to release its output pipes. */
const PIPE_GRACE_MS = 200;

/**
 * Runs `bash -c command` in its own process group. On timeout, abort, or when the shell exits, the
 * whole group is killed, so nothing the command started in the background outlives the call
 * (a process that deliberately leaves the group with `setsid` is out of reach).
 *
 * @example
 * const result = await runShellCommand('npm test', { cwd: workspace, timeoutMs: 60_000, maxOutputBytes: 30_000, signal });
 * console.log(result.exitCode, result.output);
 */
export function runShellCommand(
  command: string,
  options: ShellCommandOptions,
): Promise<ShellCommandResult> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const [file = 'bash', ...args] = [...(options.launcher ?? []), 'bash', '-c', command];
    const { childPidFd } = options;
    const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe'];
    if (childPidFd !== undefined) {
      while (stdio.length < childPidFd) stdio.push('ignore');
      stdio[childPidFd] = 'pipe';
    }
    // detached: the shell leads a new process group, so one kill reaches all its descendants.
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio,
    });
    const output = collectOutput(options.maxOutputBytes);
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));

    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let done = false;

    // A sandbox's processes live in a session of their own, out of the group's reach.
    const sandbox = childPidFd === undefined ? undefined : watchLaunchedChild(child, childPidFd);
    const killAll = (): void => {
      const killLauncher = () => {
        if (child.pid !== undefined) killQuietly(-child.pid);
      };
      // While the launcher runs, its child is killed first; once it has ended, so has its child.
      if (sandbox !== undefined && exit === undefined)
        sandbox.kill().then(killLauncher, killLauncher);
      else killLauncher();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killAll();
    }, options.timeoutMs);
    const onAbort = (): void => {
      killAll();
      finish();
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      if (error !== undefined)
        reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      else if (signal?.aborted) reject(abortError(signal));
      else
        resolve({
          output: output.text(),
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          timedOut,
          droppedBytes: output.droppedBytes(),
        });
    };

    child.on('error', (error) => {
      killAll();
      finish(error);
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Background jobs of the command would otherwise live on and hold the pipes open.
      killAll();
      graceTimer = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.on('close', () => finish());
  });
}

/** Why the command ended early: killed, so it may have done part of its work. */
function abortError(signal: AbortSignal): Error {
  return new Error('cancelled: the command was killed before it finished', {
    cause: signal.reason,
  });
}
