import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveWorkspaceRoot } from '../resolveInWorkspace.js';
import { createShellSandbox } from '../sandbox/createShellSandbox.js';
import type { SandboxOptions } from '../sandbox/sandboxOptions.js';
import { runShellCommand, type ShellCommandOptions } from './runShellCommand.js';
import { trackWorkspaceChanges } from './trackChanges.js';

/**
 * Limits of `bash`, and how its commands are confined.
 *
 * @example
 * const options: BashToolOptions = {
 *   timeoutMs: 60_000,
 *   maxOutputBytes: 20_000,
 *   sandbox: { allowNetwork: ['registry.npmjs.org:443'], allowWrite: ['~/.npm'] },
 * };
 */
export interface BashToolOptions {
  /** Timeout of a command when the model gives none, in milliseconds. Default 120 000. */
  timeoutMs?: number;
  /** Largest `timeout_ms` the model may ask for. Default 600 000. */
  maxTimeoutMs?: number;
  /** Output kept per command, stdout and stderr together. Default 30 000 bytes. */
  maxOutputBytes?: number;
  /** Environment of commands. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * The OS sandbox commands run in (Linux, bubblewrap): by default they write only inside the
   * workspace and a private `/tmp`, read no secrets outside the workspace, and have no network;
   * {@link SandboxOptions} widens that. Where no sandbox can start (no `bwrap`, namespaces
   * forbidden, not Linux), every command asks a person first, in every permission mode, and its
   * result says it ran unconfined. `false` turns the sandbox off: commands run with the agent's
   * own rights and only the permission rules guard them.
   */
  sandbox?: SandboxOptions | false;
}

/** Lets the command's own timeout fire (and report partial output) before the registry's. */
const OUTER_TIMEOUT_GRACE_MS = 5_000;

/**
 * The `bash` tool: runs `bash -c command` with the workspace root as working directory, in an OS
 * sandbox unless `sandbox: false` (see {@link BashToolOptions.sandbox}). Reports the output
 * (stdout and stderr together, the middle dropped with a note beyond the cap) and the exit code;
 * a non-zero exit is still a result the model reads, not a tool error. On timeout or cancel the
 * command and everything it started are killed. The files git lists as uncommitted after the
 * command and not before it are reported as the call's changes
 * (see `ToolContext.reportChangedPaths`).
 *
 * Whether a sandbox can start is checked once, here (a millisecond-scale `bwrap` run).
 *
 * @example
 * const registry = createToolRegistry([
 *   createBashTool({ timeoutMs: 30_000, sandbox: { allowNetwork: ['registry.npmjs.org:443'] } }),
 * ]);
 * await runToolCall(registry, { id: '1', name: 'bash', input: { command: 'npm test' } }, { workspace, signal });
 */
export function createBashTool(options: BashToolOptions = {}): Tool<ReturnType<typeof inputFor>> {
  const defaultTimeoutMs = options.timeoutMs ?? 120_000;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? 600_000, defaultTimeoutMs);
  const maxOutputBytes = options.maxOutputBytes ?? 30_000;
  const sandbox = options.sandbox === false ? null : createShellSandbox(options.sandbox);
  const unconfinedBecause = sandbox?.unavailable ?? null;
  const confinement =
    sandbox === null
      ? ''
      : unconfinedBecause === null
        ? ` ${describeSandbox(options.sandbox || {})}`
        : ` No sandbox could start (${unconfinedBecause}), so commands run unconfined and a person approves each one first.`;
  return defineTool({
    name: 'bash',
    description: `Run a bash command with the workspace root as working directory and return its output and exit code. Times out after ${defaultTimeoutMs} ms unless timeout_ms says otherwise (at most ${maxTimeoutMs}). Output beyond ${maxOutputBytes} bytes is shortened in the middle. Commands left running in the background are killed when the command ends.${confinement}`,
    input: inputFor(maxTimeoutMs),
    mutating: true,
    edit: false,
    alwaysAsk: unconfinedBecause !== null,
    timeoutMs: maxTimeoutMs + OUTER_TIMEOUT_GRACE_MS,
    async execute({ command, timeout_ms }, ctx) {
      const { signal } = ctx;
      const timeoutMs = timeout_ms ?? defaultTimeoutMs;
      const root = await resolveWorkspaceRoot(ctx.workspace);
      const shellOptions: ShellCommandOptions = {
        cwd: root,
        timeoutMs,
        maxOutputBytes,
        signal,
        ...(options.env === undefined ? {} : { env: options.env }),
      };
      const reportCommand = await trackWorkspaceChanges(ctx, root);
      const result =
        sandbox !== null && unconfinedBecause === null
          ? await sandbox.run(command, shellOptions)
          : await runShellCommand(command, shellOptions);
      const output = result.output === '' ? '(no output)' : result.output.replace(/\n$/, '');
      if (result.timedOut) {
        throw new Error(
          `command timed out after ${timeoutMs} ms and was killed; output so far:\n${output}`,
        );
      }
      await reportCommand();
      const ending =
        result.exitCode === null
          ? `[killed by ${result.signal}]`
          : `[exit code ${result.exitCode}]`;
      const note =
        unconfinedBecause === null ? '' : `\n[ran without a sandbox: ${unconfinedBecause}]`;
      return `${output}\n${ending}${note}`;
    },
  });
}

/** What the model should know of its confinement, so it does not retry what cannot work. */
function describeSandbox(options: SandboxOptions): string {
  const writable = [
    'the workspace',
    '/tmp (emptied after each command)',
    ...(options.allowWrite ?? []),
  ];
  const network =
    options.allowNetwork === undefined || options.allowNetwork.length === 0
      ? 'have no network access'
      : `can connect only to ${options.allowNetwork.join(', ')}, through the proxy in HTTP_PROXY/HTTPS_PROXY`;
  return `Commands run in a sandbox: they can write only to ${writable.join(', ')}; they cannot read credentials or other users' files outside the workspace; they ${network}.`;
}

function inputFor(maxTimeoutMs: number) {
  return z.object({
    command: z.string().min(1).describe('The bash command to run'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(maxTimeoutMs)
      .optional()
      .describe('Kill the command after this many milliseconds'),
  });
}
