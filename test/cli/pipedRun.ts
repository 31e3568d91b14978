/** `agent-statechart run` in this process, with its input piped in as a person would type it. */
import { PassThrough } from 'node:stream';
import { runCommand } from '../../src/cli/runCommand.js';

/**
 * Runs `run --workspace workspace …argv` with `lines` piped in, then the end of the input, and
 * answers its exit code and everything it printed.
 *
 * @example
 * const { code, printed } = await runPiped(workspace, ['list files']);
 */
export async function runPiped(
  workspace: string,
  lines: string[],
  argv: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; printed: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const done = runCommand(['--workspace', workspace, ...argv], { input, output, env });
  input.end(lines.map((line) => `${line}\n`).join(''));
  const code = await done;
  return { code, printed };
}
