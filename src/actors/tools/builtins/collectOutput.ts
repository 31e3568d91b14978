/**
 * Keeps the start and the end of a stream of output within a byte budget, dropping the middle:
 * the start shows what a command did, the end usually holds its errors and summary.
 *
 * @example
 * const output = collectOutput(30_000);
 * child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
 * child.on('close', () => console.log(output.text()));
 */
export interface OutputCollector {
  /** Adds a chunk. */
  push(chunk: Buffer): void;
  /** The kept output, with a note where bytes were dropped. */
  text(): string;
  /** How many bytes were dropped. */
  droppedBytes(): number;
}

/**
 * Creates an {@link OutputCollector} keeping at most `maxBytes` bytes: half from the start, half
 * from the end.
 *
 * @example
 * const output = collectOutput(10);
 * output.push(Buffer.from('0123456789abcdef'));
 * output.text(); // '01234\n[… 6 bytes of output omitted …]\nbcdef'
 */
export function collectOutput(maxBytes: number): OutputCollector {
  const headLimit = Math.floor(maxBytes / 2);
  const tailLimit = maxBytes - headLimit;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let dropped = 0;

  return {
    push(chunk) {
      let rest = chunk;
      if (headBytes < headLimit) {
        const taken = rest.subarray(0, headLimit - headBytes);
        head.push(taken);
        headBytes += taken.length;
        rest = rest.subarray(taken.length);
      }
      if (rest.length === 0) return;
      tail.push(rest);
      tailBytes += rest.length;
      // Trim whole chunks first, then cut into the oldest one, so the tail never exceeds its share.
      while (tailBytes > tailLimit) {
        const oldest = tail[0]!;
        const excess = tailBytes - tailLimit;
        if (oldest.length <= excess) {
          tail.shift();
          tailBytes -= oldest.length;
          dropped += oldest.length;
        } else {
          tail[0] = oldest.subarray(excess);
          tailBytes -= excess;
          dropped += excess;
        }
      }
      if (tail.length > 64) tail = [Buffer.concat(tail)];
    },
    text() {
      // Decoded in one piece when nothing was dropped, so a character split across chunks survives.
      if (dropped === 0) return Buffer.concat([...head, ...tail]).toString('utf8');
      const start = Buffer.concat(head).toString('utf8');
      const end = Buffer.concat(tail).toString('utf8');
      return `${start}\n[… ${dropped} bytes of output omitted …]\n${end}`;
    },
    droppedBytes: () => dropped,
  };
}
