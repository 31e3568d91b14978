import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveWorkspaceRoot } from '../resolveInWorkspace.js';
import { runShellCommand } from './runShellCommand.js';

/**
 * Limits of `bash`.
 *
 * @example
 * const options: BashToolOptions = { timeoutMs: 60_000, maxTimeoutMs: 300_000, maxOutputBytes: 20_000 };
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
}

/** Lets the command's own timeout fire (and report partial output) before the registry's. */
const OUTER_TIMEOUT_GRACE_MS = 5_000;

/**
 * The `bash` tool: runs `bash -c command` with the workspace root as working directory. Reports
 * the output (stdout and stderr together, the middle dropped with a note beyond the cap) and the
 * exit code; a non-zero exit is still a result the model reads, not a tool error. On timeout or
 * cancel the command's whole process group is killed.
 *
 * @example
 * const registry = createToolRegistry([createBashTool({ timeoutMs: 30_000 })]);
 * await runToolCall(registry, { id: '1', name: 'bash', input: { command: 'npm test' } }, { workspace, signal });
 */
export function createBashTool(options: BashToolOptions = {}): Tool<ReturnType<typeof inputFor>> {
  const defaultTimeoutMs = options.timeoutMs ?? 120_000;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? 600_000, defaultTimeoutMs);
  const maxOutputBytes = options.maxOutputBytes ?? 30_000;
  return defineTool({
    name: 'bash',
    description: `Run a bash command with the workspace root as working directory and return its output and exit code. Times out after ${defaultTimeoutMs} ms unless timeout_ms says otherwise (at most ${maxTimeoutMs}). Output beyond ${maxOutputBytes} bytes is shortened in the middle. Commands left running in the background are killed when the command ends.`,
    input: inputFor(maxTimeoutMs),
    mutating: true,
    edit: false,
    timeoutMs: maxTimeoutMs + OUTER_TIMEOUT_GRACE_MS,
    async execute({ command, timeout_ms }, { workspace, signal }) {
      const cwd = await resolveWorkspaceRoot(workspace);
      const timeoutMs = timeout_ms ?? defaultTimeoutMs;
      const result = await runShellCommand(command, {
        cwd,
        timeoutMs,
        maxOutputBytes,
        signal,
        ...(options.env === undefined ? {} : { env: options.env }),
      });
      const output = result.output === '' ? '(no output)' : result.output.replace(/\n$/, '');
      if (result.timedOut) {
        throw new Error(
          `command timed out after ${timeoutMs} ms and was killed; output so far:\n${output}`,
        );
      }
      const ending =
        result.exitCode === null
          ? `[killed by ${result.signal}]`
          : `[exit code ${result.exitCode}]`;
      return `${output}\n${ending}`;
    },
  });
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
