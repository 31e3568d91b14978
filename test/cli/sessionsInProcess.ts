/**
 * `agent-statechart sessions …` run in the test's own process: what a test of a stored session
 * reads back through the command line, without spawning one.
 */
import { runSessionsCommand } from '../../src/cli/sessionsCommand.js';

/**
 * Runs `sessions` with `argv`: its exit code and what it printed, joined by lines.
 *
 * @example
 * const { code, out } = await sessionsInProcess(['show', 'fix-tests', '--workspace', dir]);
 */
export async function sessionsInProcess(
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSessionsCommand(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
