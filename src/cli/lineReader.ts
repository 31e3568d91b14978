/**
 * Lines from the terminal (or a pipe) for `agent-statechart run`, one read at a time. A read that
 * is waiting can be cancelled (Ctrl-C): it resolves as `cancelled`, and the next line typed goes
 * to the next read instead of being taken as the answer to a question nobody is asking any more.
 */
import { createInterface, type Interface } from 'node:readline';

/**
 * What one read gave: a line, the end of the input, or a cancellation.
 *
 * @example
 * const read: LineRead = { kind: 'line', text: 'list files' };
 */
export type LineRead = { kind: 'line'; text: string } | { kind: 'end' } | { kind: 'cancelled' };

/**
 * Reads lines, keeping those that arrive while nobody reads (typed ahead, or piped all at once)
 * for the next read, in order.
 *
 * @example
 * const reader = new LineReader(process.stdin);
 * const read = await reader.read();
 * if (read.kind === 'line') console.log(read.text);
 */
export class LineReader {
  readonly #lines: Interface;
  readonly #buffered: string[] = [];
  #waiting: ((read: LineRead) => void) | undefined;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    // Not readline's terminal mode: the terminal keeps its own line editing, and Ctrl-C stays
    // the SIGINT a user expects.
    this.#lines = createInterface({ input, terminal: false });
    this.#lines.on('line', (text) => this.#deliver({ kind: 'line', text }));
    this.#lines.on('close', () => {
      this.#ended = true;
      this.#deliver({ kind: 'end' });
    });
  }

  /** The next line: one already typed, else the next to come. One read at a time. */
  read(): Promise<LineRead> {
    if (this.#waiting !== undefined) {
      throw new Error('LineReader.read: a read is already waiting; cancel it first');
    }
    const text = this.#buffered.shift();
    if (text !== undefined) return Promise.resolve({ kind: 'line', text });
    if (this.#ended) return Promise.resolve({ kind: 'end' });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Ends the waiting read, if any, as `cancelled`; returns whether one was waiting. */
  cancel(): boolean {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ kind: 'cancelled' });
    return waiting !== undefined;
  }

  /** Stops reading the input. */
  close(): void {
    this.#lines.close();
  }

  #deliver(read: LineRead): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting !== undefined) waiting(read);
    else if (read.kind === 'line') this.#buffered.push(read.text);
  }
}
