import { execFile } from 'node:child_process';
import { errorMessage } from '../../machine/index.js';

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
  /** Environment of git; the variables that keep git quiet and parseable are set over it. */
  env: NodeJS.ProcessEnv;
  /** Written to git's standard input (for `--pathspec-from-file=-`). */
  input?: string;
}

/**
 * Runs `git` with arguments (no shell, so file names are never interpreted) and resolves with the
 * outcome; never rejects. Git runs in the C locale (errors such as "not a git repository" are
 * recognised by their English text), takes no optional locks (a status refresh must not collide
 * with the user's own git commands), never prompts, and reads every pathspec as a literal path
 * (a file named `*.ts` names that file, not a glob).
 *
 * @example
 * const run = await runGit(['rev-parse', 'HEAD'], { cwd: workspace, timeoutMs: 30_000, env: process.env });
 * if (run.ok) console.log(run.stdout.trim());
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitRun> {
  const name = `git ${args.find((arg) => !arg.startsWith('-') && !arg.includes('=')) ?? ''}`.trim();
  return new Promise((resolve) => {
    try {
      const child = execFile(
        'git',
        args,
        {
          cwd: options.cwd,
          env: {
            ...options.env,
            LC_ALL: 'C',
            GIT_OPTIONAL_LOCKS: '0',
            GIT_TERMINAL_PROMPT: '0',
            GIT_LITERAL_PATHSPECS: '1',
          },
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
      // Git may exit before reading its input (a bad repository); its exit status says why, so
      // the broken pipe adds nothing.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input ?? '');
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
