/**
 * Keeps track of the promises the actors started, so a graceful shutdown can wait until every
 * cancelled tool, hook and model call has actually finished (processes killed, files closed)
 * before it reports that the agent stopped.
 *
 * @example
 * const work = new InFlightWork();
 * work.track(runToolCall(registry, call, options));
 * await work.settled();
 */
export class InFlightWork {
  readonly #pending = new Set<Promise<unknown>>();

  /** Adds a promise; it is forgotten once it settles. Never rejects on its behalf. */
  track(promise: Promise<unknown>): void {
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
  }

  /** How many tracked promises are still running. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Resolves `true` once nothing tracked is running (work started meanwhile is waited for too),
   * or `false` after `timeoutMs` if something still is.
   */
  async settled(timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.#pending.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, remaining);
      });
      await Promise.race([Promise.all([...this.#pending]), timeout]);
      clearTimeout(timer);
    }
    return true;
  }
}
