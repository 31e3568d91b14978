import type { SandboxMount } from './planSandboxMounts.js';

/**
 * What every sandboxed command gets, before any mount of its own:
 * - its own user, PID, network, IPC, UTS and cgroup namespaces: it sees and signals only its own
 *   processes, and its network is a loopback of its own;
 * - no capabilities, even when the agent runs as root (root in the sandbox could otherwise
 *   unmount what hides a path, or remount the root writable);
 * - a new session, so it cannot push input into a terminal of the agent's (TIOCSTI);
 * - death with the agent: when the `bwrap` process ends, everything inside is killed;
 * - the host's file system read-only, a fresh `/proc` of its own PID namespace and a minimal `/dev`.
 *
 * @example
 * spawnSync('bwrap', [...SANDBOX_BASE_ARGUMENTS, '--', 'true']);
 */
export const SANDBOX_BASE_ARGUMENTS: readonly string[] = Object.freeze([
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
]);

/**
 * The `bwrap` arguments that run a command in `workspace` with these mounts (in the order
 * {@link planSandboxMounts} gives), ending with `--`: the command and its arguments follow.
 *
 * `/proc` ends read-only as a whole: its kernel settings (`/proc/sys`, `/proc/sysrq-trigger`) are
 * files owned by root, which a sandboxed root could otherwise write without any capability.
 * Hidden directories become read-only only at the end, after the mounts inside them were made.
 * A hidden file is covered by `/dev/null`, which cannot be opened there (bubblewrap's binds
 * forbid device files).
 *
 * @example
 * const args = bwrapArguments('/srv/repo', mounts);
 * spawn('bwrap', [...args, 'bash', '-c', 'npm test']);
 */
export function bwrapArguments(workspace: string, mounts: readonly SandboxMount[]): string[] {
  const args = [...SANDBOX_BASE_ARGUMENTS];
  const readOnlyLast = ['/proc'];
  for (const mount of mounts) {
    switch (mount.kind) {
      case 'temp':
        args.push('--tmpfs', mount.path);
        break;
      case 'hide':
        if (mount.directory) {
          args.push('--tmpfs', mount.path);
          readOnlyLast.push(mount.path);
        } else {
          args.push('--ro-bind', '/dev/null', mount.path);
        }
        break;
      case 'read':
        args.push('--ro-bind', mount.source ?? mount.path, mount.path);
        break;
      case 'write':
        args.push('--bind', mount.source ?? mount.path, mount.path);
        break;
    }
  }
  for (const path of readOnlyLast) args.push('--remount-ro', path);
  args.push('--chdir', workspace, '--');
  return args;
}
