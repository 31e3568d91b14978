import type { ShellCommandOptions, ShellCommandResult } from '../builtins/runShellCommand.js';
import type { AllowedHost } from './allowedHosts.js';
import type { SandboxPaths } from './planSandboxMounts.js';
import type { SandboxOptions } from './sandboxOptions.js';

/**
 * What `bash` needs of an OS sandbox, whatever the platform: whether one can start here, and how
 * to run a command in it. Each platform's sandbox implements this (bubblewrap on Linux); where
 * none is implemented or none can start, `unavailable` says why.
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
   * like `runShellCommand`. Rejects when {@link ShellSandbox.unavailable} says why it cannot.
   */
  run(command: string, options: ShellCommandOptions): Promise<ShellCommandResult>;
}

/**
 * A sandbox that cannot start, for `reason`.
 *
 * @example
 * const sandbox = unavailableSandbox('no shell sandbox is implemented for win32');
 */
export function unavailableSandbox(reason: string): ShellSandbox {
  return {
    unavailable: reason,
    run: () => Promise.reject(new Error(`no sandbox can start: ${reason}`)),
  };
}

/**
 * What a platform's sandbox is made from: the options, checked.
 *
 * @example
 * const settings: SandboxSettings = { paths, allowed: parseAllowedHosts([]), options: {} };
 */
export interface SandboxSettings {
  /** The paths of `denyRead`, `allowRead` and `allowWrite`, absolute. */
  paths: SandboxPaths;
  /** `allowNetwork`, parsed. */
  allowed: readonly AllowedHost[];
  /** The options as given, for what only one platform's sandbox reads (`bwrapPath`). */
  options: SandboxOptions;
}

/**
 * Makes one platform's sandbox.
 *
 * @example
 * const create: SandboxFactory = bubblewrapSandbox;
 */
export type SandboxFactory = (settings: SandboxSettings) => ShellSandbox;
