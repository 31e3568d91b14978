/**
 * The process a launcher such as bubblewrap starts the command in. bubblewrap puts the command in
 * a PID namespace and a session of its own, where a kill of the launcher's process group does not
 * reach; everything in the namespace ends when its first process does, and `--die-with-parent`
 * ends that one with the launcher — unless the launcher dies in the instant between creating it
 * and it asking to die with its parent. So a cancelled command's namespace is ended directly:
 * the launcher says which process is its child (`--info-fd`), and that process is killed before
 * the launcher is.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How long a kill waits for the launcher to say which process is its child, before going on. */
const CHILD_PID_WAIT_MS = 2_000;

/**
 * A launcher's child, as the launcher reports it.
 *
 * @example
 * const sandbox = watchLaunchedChild(launcher, 3);
 * await sandbox.kill(); // then kill the launcher
 */
export interface LaunchedChild {
  /**
   * Kills the launcher's child: once the launcher has said which process it is (or has closed
   * the descriptor or ended without saying, or has not said within 2 s). Resolves when done.
   */
  kill(): Promise<void>;
}

/**
 * Reads `{"child-pid": N}` from the launcher's file descriptor `fd` (bubblewrap's `--info-fd`
 * format).
 *
 * @example
 * const child = spawn('bwrap', ['--info-fd', '3', ...], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
 * const sandbox = watchLaunchedChild(child, 3);
 */
export function watchLaunchedChild(launcher: ChildProcess, fd: number): LaunchedChild {
  let pid: number | undefined;
  let settle!: () => void;
  const said = new Promise<void>((resolve) => (settle = resolve));
  const stream = launcher.stdio[fd] as Readable | null | undefined;
  if (stream === null || stream === undefined) {
    settle();
  } else {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      // A number is whole once something other than a digit follows it.
      const found = /"child-pid"\s*:\s*(\d+)\D/.exec(text);
      if (found !== null && pid === undefined) {
        pid = Number(found[1]);
        settle();
      }
    });
    stream.on('close', settle);
    stream.on('error', settle);
  }
  launcher.once('exit', settle);
  return {
    async kill() {
      const waited = setTimeout(settle, CHILD_PID_WAIT_MS);
      await said;
      clearTimeout(waited);
      // Only while it is still the launcher's child: a number of a process that ended may be
      // given to another one.
      if (pid !== undefined && launcher.pid !== undefined && parentOf(pid) === launcher.pid) {
        killQuietly(pid);
      }
    },
  };
}

/**
 * Sends SIGKILL to a process (or, negative, a process group) that may have ended already.
 *
 * @example
 * killQuietly(-child.pid!); // the whole group
 */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ESRCH: it is already gone.
  }
}

/** The parent of a running process (from Linux's /proc), or undefined when it has ended. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}
