import { AgentStatechartError } from '../../../machine/index.js';
import { parseAllowedHosts } from './allowedHosts.js';
import { bubblewrapSandbox } from './bubblewrapSandbox.js';
import { expandSandboxPath } from './planSandboxMounts.js';
import type { SandboxOptions } from './sandboxOptions.js';
import {
  type SandboxFactory,
  type SandboxSettings,
  type ShellSandbox,
  unavailableSandbox,
} from './shellSandbox.js';

/**
 * The sandbox of each platform that has one. Another platform's (macOS Seatbelt, for one) goes
 * here once it is implemented and tested on that platform.
 */
const SANDBOXES: Readonly<Partial<Record<NodeJS.Platform, SandboxFactory>>> = Object.freeze({
  linux: bubblewrapSandbox,
});

/**
 * Checks the options (throwing {@link AgentStatechartError} `INVALID_OPTION` on a bad path or
 * `allowNetwork` entry) and makes this platform's sandbox, which says whether it can start here.
 *
 * @example
 * const sandbox = createShellSandbox({ allowWrite: ['~/.npm'] });
 * if (sandbox.unavailable !== null) console.warn(`no sandbox: ${sandbox.unavailable}`);
 */
export function createShellSandbox(
  options: SandboxOptions = {},
  platform: NodeJS.Platform = process.platform,
): ShellSandbox {
  const settings: SandboxSettings = {
    allowed: parseAllowedHosts(options.allowNetwork ?? []),
    paths: {
      denyRead: absolutePaths(options.denyRead, 'denyRead'),
      allowRead: absolutePaths(options.allowRead, 'allowRead'),
      allowWrite: absolutePaths(options.allowWrite, 'allowWrite'),
    },
    options,
  };
  const create = SANDBOXES[platform];
  if (create === undefined) {
    return unavailableSandbox(
      `no shell sandbox is implemented for ${platform}; bash is sandboxed on Linux, with bubblewrap`,
    );
  }
  return create(settings);
}

function absolutePaths(given: readonly string[] | undefined, name: string): string[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) {
    throw new AgentStatechartError('INVALID_OPTION', `sandbox ${name} must be an array of paths`);
  }
  return given.map((path: string) => expandSandboxPath(path));
}
