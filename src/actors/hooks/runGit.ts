import { execFile } from 'node:child_process';
import { errorMessage } from '../../machine/agentStatechartError.js';

/**
 * How one git command ended. Failures are data here, so the caller decides what is fatal.
 *
 * @example
 * const run: GitRun = { ok: false, exitCode: 128, stdout: '', stderr: 'fatal: not a git repository', message: 'git status failed (exit 128): fatal: not a git repository' };
 */
export interface GitRun {
  ok: boolean;
  /** The exit code, or null when git did not run or was killed. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** A one-line description of the failure, naming the command; empty on success. */
  message: string;
}

/**
 * Where and how to run git.
 *
 * @example
 * const options: RunGitOptions = { cwd: '/repo', timeoutMs: 30_000, env: process.env };
 */
export interface RunGitOptions {
  cwd: string;
  signal?: AbortSignal;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs `git` with arguments (no shell, so file names are never interpreted) and resolves with the
 * outcome; never rejects.
 *
 * @example
 * const run = await runGit(['rev-parse', 'HEAD'], { cwd: workspace, timeoutMs: 30_000, env: process.env });
 * if (run.ok) console.log(run.stdout.trim());
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitRun> {
  const name = `git ${args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? ''}`.trim();
  return new Promise((resolve) => {
    try {
      execFile(
        'git',
        args,
        {
          cwd: options.cwd,
          env: options.env,
          timeout: options.timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
          windowsHide: true,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve({ ok: true, exitCode: 0, stdout, stderr, message: '' });
            return;
          }
          const exitCode = typeof error.code === 'number' ? error.code : null;
          const detail = stderr.trim() || error.message;
          resolve({
            ok: false,
            exitCode,
            stdout,
            stderr,
            message: `${name} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${detail}`,
          });
        },
      );
    } catch (error) {
      const detail = errorMessage(error);
      resolve({
        ok: false,
        exitCode: null,
        stdout: '',
        stderr: '',
        message: `${name} failed: ${detail}`,
      });
    }
  });
}
