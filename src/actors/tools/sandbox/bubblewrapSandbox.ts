import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShellCommand } from '../builtins/runShellCommand.js';
import { bwrapArguments } from './bwrapArguments.js';
import { networkRelayLauncher, proxyEnvironment } from './networkRelay.js';
import { planSandboxMounts } from './planSandboxMounts.js';
import { probeSandbox } from './probeSandbox.js';
import { type SandboxSettings, type ShellSandbox, unavailableSandbox } from './shellSandbox.js';

/** The descriptor bubblewrap reports its sandbox's process on (`--info-fd`). */
const INFO_FD = 3;

/** Where the proxy's socket directory appears inside the sandbox: in its private temp. */
const NETWORK_DIRECTORY_INSIDE = '/tmp/.agent-statechart-network';

/**
 * The Linux sandbox: each command in a fresh bubblewrap sandbox (see `SandboxOptions` for what is
 * confined), with the `bwrap` of `options.bwrapPath` (default: the one on the `PATH`). Whether one
 * can start is probed here, once.
 *
 * @example
 * const sandbox = bubblewrapSandbox({ paths, allowed: [], options: {} });
 */
export function bubblewrapSandbox(settings: SandboxSettings): ShellSandbox {
  const { paths, allowed } = settings;
  const bwrapPath = settings.options.bwrapPath ?? 'bwrap';
  const unavailable = probeSandbox(bwrapPath);
  if (unavailable !== null) return unavailableSandbox(unavailable);
  return {
    unavailable,
    async run(command, shellOptions) {
      const workspace = shellOptions.cwd;
      const mounts = await planSandboxMounts(workspace, paths);
      // Temporary files go to the private /tmp, whatever this process's TMPDIR says.
      const env = { ...(shellOptions.env ?? process.env), TMPDIR: '/tmp' };
      // bubblewrap says which process the sandbox is, so a cancelled command's sandbox is ended
      // even when bubblewrap itself is killed before the sandbox would die with it.
      const bwrap = [bwrapPath, '--info-fd', String(INFO_FD)];
      if (allowed.length === 0) {
        const launcher = [...bwrap, ...bwrapArguments(workspace, mounts)];
        return runShellCommand(command, { ...shellOptions, env, launcher, childPidFd: INFO_FD });
      }
      const socketDirectory = await mkdtemp(join(tmpdir(), 'agent-statechart-network-'));
      try {
        // Loaded only for a shell that may reach the network: it brings in node:http.
        const { startNetworkProxy } = await import('./startNetworkProxy.js');
        const proxy = await startNetworkProxy(join(socketDirectory, 'proxy.sock'), allowed);
        try {
          mounts.push({
            kind: 'read',
            path: NETWORK_DIRECTORY_INSIDE,
            source: socketDirectory,
            directory: true,
          });
          const launcher = [
            ...bwrap,
            ...bwrapArguments(workspace, mounts),
            ...networkRelayLauncher(`${NETWORK_DIRECTORY_INSIDE}/proxy.sock`),
          ];
          return await runShellCommand(command, {
            ...shellOptions,
            env: { ...env, ...proxyEnvironment() },
            launcher,
            childPidFd: INFO_FD,
          });
        } finally {
          await proxy.close();
        }
      } finally {
        await rm(socketDirectory, { recursive: true, force: true });
      }
    },
  };
}
