/**
 * The `agent-statechart` command in a child process, offline, with its input piped: lines can be
 * typed as the output asks for them, and the process can be killed the way a crash would kill it.
 * The command is bundled from source once per test file (esbuild, as `npm run build` would compile
 * it), so each of the many processes starts in a fraction of what tsx takes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { bundleChild } from '../support/bundleChild.js';

const root = join(import.meta.dirname, '../..');

/**
 * Bundles the command (and the demo's second module, which it starts next to itself) into its own
 * test bundle folder; resolves with the entry's path.
 */
export async function bundleCli(name: string): Promise<string> {
  const outdir = await bundleChild(name, ['src/cli/main.ts', 'src/cli/demoProcess.ts']);
  return join(outdir, 'main.mjs');
}

let bundled: Promise<string> | undefined;

/** The command, bundled once for the test file that asks. */
function cliMain(): Promise<string> {
  const file = /([^/]+)\.test\.ts$/.exec(expect.getState().testPath ?? '')?.[1] ?? 'cli';
  bundled ??= bundleCli(`cli-${file}`);
  return bundled;
}

export class CliProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  #stdout = '';
  #stderr = '';
  #changed: () => void = () => undefined;
  /** Resolves with the exit code (or the signal that ended it) once the command has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** Starts `agent-statechart <args>` from the bundled command `main`. */
  constructor(main: string, args: string[]) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    this.#child = spawn(process.execPath, [main, ...args], { cwd: root, env });
    this.#child.stdout.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString();
      this.#changed();
    });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
      this.#changed();
    });
    this.exited = new Promise((resolve) => {
      this.#child.on('close', (code, signal) => {
        this.#changed();
        resolve({ code, signal });
      });
    });
  }

  get stdout(): string {
    return this.#stdout;
  }

  get stderr(): string {
    return this.#stderr;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** Types a line. */
  type(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  /** Ends the input, as Ctrl-D would. */
  endInput(): void {
    this.#child.stdin.end();
  }

  /** Sends SIGINT, as Ctrl-C in a terminal would. */
  interrupt(): void {
    this.#child.kill('SIGINT');
  }

  /** Kills the process the way a crash would: SIGKILL, nothing flushed, nothing cleaned up. */
  crash(): void {
    this.#child.kill('SIGKILL');
  }

  /** Waits until the output shows `text`; fails with everything it showed after `timeoutMs`. */
  async expect(text: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#stdout.includes(text)) {
      if (
        this.#child.exitCode !== null ||
        this.#child.signalCode !== null ||
        Date.now() > deadline
      ) {
        throw new Error(
          `the command never printed ${JSON.stringify(text)}; it printed:\n${this.#stdout}\n${this.#stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
        this.#changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}

/**
 * Runs the command with `lines` as its whole input and resolves once it has ended.
 *
 * @example
 * const { code, stdout } = await runCli(['sessions', 'list', '--workspace', dir]);
 */
export async function runCli(
  args: string[],
  lines: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = await startCli(args);
  for (const line of lines) cli.type(line);
  cli.endInput();
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout, stderr: cli.stderr };
}

/**
 * Starts the command with `args`.
 *
 * @example
 * const run = await startCli(['run', '--session', 'notes']);
 * await run.expect('you> ');
 */
export async function startCli(args: string[]): Promise<CliProcess> {
  return new CliProcess(await cliMain(), args);
}
