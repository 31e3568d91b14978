import { spawnSync } from 'node:child_process';
import { SANDBOX_BASE_ARGUMENTS } from './bwrapArguments.js';

/** Starting an empty sandbox takes milliseconds; this only bounds a hung `bwrap`. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Whether a bubblewrap sandbox can start here (Linux): `null` when it can, else why not, in a
 * sentence that says how to fix it. Starts an empty sandbox with every namespace and mount a
 * command gets, so a kernel or container that forbids namespaces is found now, not at the first
 * command.
 *
 * Synchronous because tools are defined synchronously and the answer decides how the tool is
 * described to the model and to the chart.
 *
 * @example
 * const reason = probeSandbox('bwrap');
 * if (reason !== null) console.warn(`bash runs unconfined: ${reason}`);
 */
export function probeSandbox(bwrapPath: string): string | null {
  const result = spawnSync(
    bwrapPath,
    [...SANDBOX_BASE_ARGUMENTS, '--remount-ro', '/proc', '--', 'true'],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
  );
  if (result.error !== undefined && 'code' in result.error && result.error.code === 'ENOENT') {
    return `bubblewrap ('${bwrapPath}') is not installed; install it (Debian and Ubuntu: apt-get install bubblewrap)`;
  }
  if (result.error !== undefined) {
    return `bubblewrap ('${bwrapPath}') could not run: ${result.error.message}`;
  }
  if (result.status !== 0) {
    const said =
      result.stderr.trim().split('\n')[0] ||
      (result.signal === null ? `exit code ${result.status}` : `killed by ${result.signal}`);
    return `bubblewrap could not create a sandbox (${said}); namespaces may be disabled here (kernel.unprivileged_userns_clone, or a container without them)`;
  }
  return null;
}
