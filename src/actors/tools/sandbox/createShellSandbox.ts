import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentStatechartError } from '../../../machine/agentStatechartError.js';
import {
  runShellCommand,
  type ShellCommandOptions,
  type ShellCommandResult,
} from '../builtins/runShellCommand.js';
import { parseAllowedHosts } from './allowedHosts.js';
import { bwrapArguments } from './bwrapArguments.js';
import { networkRelayLauncher, proxyEnvironment } from './networkRelay.js';
import { expandSandboxPath, planSandboxMounts, type SandboxPaths } from './planSandboxMounts.js';
import { probeSandbox } from './probeSandbox.js';
import type { SandboxOptions } from './sandboxOptions.js';

/**
 * Runs shell commands confined by bubblewrap (see {@link SandboxOptions} for what is confined).
 *
 * @example
 * const sandbox = createShellSandbox({ allowNetwork: ['registry.npmjs.org:443'] });
 * if (sandbox.unavailable === null) {
 *   const result = await sandbox.run('npm ci', { cwd: workspace, timeoutMs: 60_000, maxOutputBytes: 30_000 });
 * }
 */
export interface ShellSandbox {
  /** Why no sandbox can start on this machine, or `null` when one can. Checked once, at creation. */
  readonly unavailable: string | null;
  /**
   * Runs `bash -c command` in a fresh sandbox whose workspace is `options.cwd` (a real path),
   * like {@link runShellCommand}. Rejects when {@link ShellSandbox.unavailable} says why it cannot.
   */
  run(command: string, options: ShellCommandOptions): Promise<ShellCommandResult>;
}

/** The descriptor bubblewrap reports its sandbox's process on (`--info-fd`). */
const INFO_FD = 3;

/** Where the proxy's socket directory appears inside the sandbox: in its private temp. */
const NETWORK_DIRECTORY_INSIDE = '/tmp/.agent-statechart-network';

/**
 * Checks the options (throwing {@link AgentStatechartError} `INVALID_OPTION` on a bad path or
 * `allowNetwork` entry) and whether a sandbox can start here.
 *
 * @example
 * const sandbox = createShellSandbox({ allowWrite: ['~/.npm'] });
 */
export function createShellSandbox(options: SandboxOptions = {}): ShellSandbox {
  const allowed = parseAllowedHosts(options.allowNetwork ?? []);
  const paths: SandboxPaths = {
    denyRead: absolutePaths(options.denyRead, 'denyRead'),
    allowRead: absolutePaths(options.allowRead, 'allowRead'),
    allowWrite: absolutePaths(options.allowWrite, 'allowWrite'),
  };
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  const unavailable = probeSandbox(bwrapPath);

  return {
    unavailable,
    async run(command, shellOptions) {
      if (unavailable !== null) throw new Error(`no sandbox can start: ${unavailable}`);
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

function absolutePaths(given: readonly string[] | undefined, name: string): string[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) {
    throw new AgentStatechartError('INVALID_OPTION', `sandbox ${name} must be an array of paths`);
  }
  return given.map((path: string) => expandSandboxPath(path));
}
