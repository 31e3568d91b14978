import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveWorkspaceRoot } from '../resolveInWorkspace.js';
import { createShellSandbox } from '../sandbox/createShellSandbox.js';
import type { SandboxOptions } from '../sandbox/sandboxOptions.js';
import type { SandboxStatus } from '../sandbox/sandboxStatus.js';
import type { ShellSandbox } from '../sandbox/shellSandbox.js';
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
   * forbidden, not Linux), commands run unconfined under the usual permission rules (in
   * `bypassPermissions`, without asking) and each result says so; `'required'` (or
   * `{ required: true, … }`) refuses them instead. `false` turns the sandbox off: commands run
   * with the agent's own rights and only the permission rules guard them. The tool's `sandbox`
   * says which applies.
   */
  sandbox?: SandboxOptions | 'required' | false;
}

/** Lets the command's own timeout fire (and report partial output) before the registry's. */
const OUTER_TIMEOUT_GRACE_MS = 5_000;

/**
 * The `bash` tool: runs `bash -c command` with the workspace root as working directory, in an OS
 * sandbox where one can start (see {@link BashToolOptions.sandbox}; the tool's `sandbox` says
 * whether its commands run in one). Reports the output (stdout and stderr together, the middle
 * dropped with a note beyond the cap) and the exit code; a non-zero exit is still a result the
 * model reads, not a tool error. On timeout or cancel the command and everything it started are
 * killed. The files git lists as uncommitted after the command and not before it are reported as
 * the call's changes (see `ToolContext.reportChangedPaths`).
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
  const sandboxOptions = options.sandbox === 'required' ? { required: true } : options.sandbox;
  const sandbox = sandboxOptions === false ? null : createShellSandbox(sandboxOptions);
  const status = sandboxStatus(sandbox, sandboxOptions);
  const refused = !status.active && status.commands === 'refused';
  const tool = defineTool({
    name: 'bash',
    description: `Run a bash command with the workspace root as working directory and return its output and exit code. Times out after ${defaultTimeoutMs} ms unless timeout_ms says otherwise (at most ${maxTimeoutMs}). Output beyond ${maxOutputBytes} bytes is shortened in the middle. Commands left running in the background are killed when the command ends.${describeConfinement(status, sandboxOptions)}`,
    input: inputFor(maxTimeoutMs),
    // Refusing every command changes nothing, so the chart need not ask a person before the
    // refusal goes back to the model.
    mutating: !refused,
    edit: false,
    timeoutMs: maxTimeoutMs + OUTER_TIMEOUT_GRACE_MS,
    async execute({ command, timeout_ms }, ctx) {
      if (refused) {
        throw new Error(
          `refused: this agent runs shell commands only in a sandbox, and none can start here (${status.reason}); the command did not run`,
        );
      }
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
        sandbox !== null && status.active
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
      const note = sandbox?.unavailable ? `\n[ran without a sandbox: ${sandbox.unavailable}]` : '';
      return `${output}\n${ending}${note}`;
    },
  });
  return { ...tool, sandbox: status };
}

/** Whether commands run confined, and when not, why and what they do instead. */
function sandboxStatus(
  sandbox: ShellSandbox | null,
  options: SandboxOptions | false | undefined,
): SandboxStatus {
  if (sandbox === null) {
    return { active: false, reason: 'it is turned off (sandbox: false)', commands: 'unconfined' };
  }
  if (sandbox.unavailable === null) return { active: true };
  const commands = options !== false && options?.required === true ? 'refused' : 'unconfined';
  return { active: false, reason: sandbox.unavailable, commands };
}

/** What the model should know of how its commands run, so it does not retry what cannot work. */
function describeConfinement(
  status: SandboxStatus,
  options: SandboxOptions | false | undefined,
): string {
  if (status.active) return ` ${describeSandbox(options || {})}`;
  if (options === false) return '';
  return status.commands === 'refused'
    ? ` No sandbox could start (${status.reason}) and this agent runs commands only in one, so every command is refused without running.`
    : ` No sandbox could start (${status.reason}), so commands run unconfined, with the agent's own rights.`;
}

/** What confines a sandboxed command. */
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
