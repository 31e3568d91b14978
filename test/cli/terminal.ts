/**
 * The `agent-statechart` command in a real pseudo-terminal, as a person runs it: util-linux's
 * `script` gives it a pty, so typed lines are echoed and Ctrl-C (byte 0x03) reaches it as the
 * terminal's SIGINT, not as a signal a test sends by hand.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

export class Terminal {
  readonly #child: ChildProcessWithoutNullStreams;
  #output = '';
  /** Where the next `expect` starts looking: each match consumes the output up to its end. */
  #seen = 0;
  #changed: () => void = () => undefined;
  /** Resolves with the exit code once the command has ended. */
  readonly exited: Promise<number>;

  /** Starts `agent-statechart <args>` (from source, through tsx) offline: no API key. */
  constructor(args: string[]) {
    // `exec`: whichever shell `script` starts ($SHELL) gives its place to the command. A shell
    // left waiting in between gets the terminal's SIGINT too, and some (dash) then end with it.
    const command = `exec ${[
      process.execPath,
      '--import',
      'tsx',
      join(root, 'src/cli/main.ts'),
      ...args,
    ]
      .map(shellQuote)
      .join(' ')}`;
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'dumb', NO_COLOR: '1' };
    delete env.ANTHROPIC_API_KEY;
    this.#child = spawn(
      'script',
      ['--quiet', '--flush', '--return', '--command', command, '/dev/null'],
      {
        cwd: root,
        env,
      },
    );
    const collect = (chunk: Buffer) => {
      // The terminal ends lines with CRLF.
      this.#output += chunk.toString().replaceAll('\r\n', '\n');
      this.#changed();
    };
    this.#child.stdout.on('data', collect);
    this.#child.stderr.on('data', collect);
    this.exited = new Promise((resolve) => {
      this.#child.on('close', (code) => {
        this.#changed();
        resolve(code ?? -1);
      });
    });
  }

  /** Everything the terminal showed so far. */
  get output(): string {
    return this.#output;
  }

  /** Types `text` (add `\n` for Enter). */
  type(text: string): void {
    this.#child.stdin.write(text);
  }

  /** Presses Ctrl-C. */
  ctrlC(): void {
    this.#child.stdin.write('\x03');
  }

  /**
   * Waits until the terminal shows `text` after what earlier calls matched; fails with the
   * whole screen after `timeoutMs`.
   */
  async expect(text: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.#output.indexOf(text, this.#seen);
      if (at >= 0) {
        this.#seen = at + text.length;
        return;
      }
      if (this.#child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `the terminal never showed ${JSON.stringify(text)}; it shows:\n${this.#output}`,
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

  /** Ends the command if it still runs. */
  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill();
  }
}
