/**
 * Heap measurement by difference: full GC, `heapUsed`, build N things, full GC, `heapUsed`.
 * Needs `--expose-gc`; every phase that measures memory runs in its own process with it.
 */
/**
 * Bytes in use after a full GC: the JS heap plus ArrayBuffer contents, which live outside it
 * (LangGraph's MemorySaver stores checkpoints as Uint8Arrays).
 */
export function settledHeap(): number {
  if (globalThis.gc === undefined) throw new Error('run with --expose-gc to measure memory');
  // Twice: the first pass can leave work (weak references, finalizers) for the second.
  globalThis.gc();
  globalThis.gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
