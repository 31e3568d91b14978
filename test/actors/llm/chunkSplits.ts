/**
 * Splits of a byte stream into reads, for the property tests of stream decoding: cut anywhere,
 * one byte per read among them.
 */
import fc from 'fast-check';

/** Where to cut `length` bytes: any set of positions, every position (one byte per read) included. */
export function splitsArb(length: number): fc.Arbitrary<number[]> {
  if (length < 2) return fc.constant([]);
  const every = Array.from({ length: length - 1 }, (_, index) => index + 1);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(every) },
    {
      weight: 9,
      arbitrary: fc
        .uniqueArray(fc.integer({ min: 1, max: length - 1 }), {
          maxLength: Math.min(length - 1, 64),
        })
        .map((cuts) => cuts.sort((a, b) => a - b)),
    },
  );
}

/** `bytes` cut at `splits` (ascending positions) into the reads a socket might deliver. */
export function chunksOf(bytes: Uint8Array, splits: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const end of splits) {
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}
