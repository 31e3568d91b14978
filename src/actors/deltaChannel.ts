/**
 * Where a host (createAgent) meets the model call it is running: the host decides how streamed
 * text is shown and when the chart catches up, the model call opens its coalescer here, and the
 * host flushes that coalescer before anything else reaches the chart. Channels are found by the
 * agent's actor system, like the services of the shared machine, so any `llm` callback body can
 * use one without new actor input.
 */
import type { LlmStreamDelta } from '../machine/types.js';
import { DeltaCoalescer, type DeltaCoalescerOptions } from './deltaCoalescer.js';

/**
 * One agent's path for streamed deltas.
 *
 * @example
 * const channel = new DeltaChannel({ show: (text) => process.stdout.write(text), chartUpdates: 'onDemand' });
 * bindDeltaChannel(actor.system, channel);
 * // before sending the actor anything: channel.flush();
 */
export class DeltaChannel {
  readonly #options: DeltaCoalescerOptions;
  #active: DeltaCoalescer | null = null;

  constructor(options: DeltaCoalescerOptions) {
    this.#options = options;
  }

  /** A coalescer for the model call that starts now; it becomes the one `flush()` reaches. */
  open(send: (event: LlmStreamDelta) => void): DeltaCoalescer {
    const coalescer = new DeltaCoalescer(send, this.#options);
    this.#active = coalescer;
    return coalescer;
  }

  /** Forgets a model call that ended (a newer one may already have opened). */
  close(coalescer: DeltaCoalescer): void {
    if (this.#active === coalescer) this.#active = null;
  }

  /** Hands the chart whatever the running model call has pending. */
  flush(): void {
    this.#active?.flush();
  }
}

const channels = new WeakMap<object, DeltaChannel>();

/**
 * Gives an agent's actor system its delta channel (call it before `actor.start()`).
 *
 * @example
 * bindDeltaChannel(actor.system, new DeltaChannel({ show }));
 */
export function bindDeltaChannel(system: object, channel: DeltaChannel): void {
  channels.set(system, channel);
}

/**
 * The coalescer a model call should push its deltas into: the host's channel when one is bound
 * to this actor system, else a plain coalescer with the given options (one batch per tick).
 *
 * @example
 * const llm = fromCallback(({ system, sendBack }) => {
 *   const deltas = openDeltaCoalescer(system, sendBack);
 *   // deltas.push(...) per delta; deltas.finish() before LlmCompleted, deltas.flush() before LlmError
 *   return () => closeDeltaCoalescer(system, deltas);
 * });
 */
export function openDeltaCoalescer(
  system: object,
  send: (event: LlmStreamDelta) => void,
  fallback: DeltaCoalescerOptions = {},
): DeltaCoalescer {
  return channels.get(system)?.open(send) ?? new DeltaCoalescer(send, fallback);
}

/**
 * Discards what a cancelled model call had pending and releases it from its channel.
 *
 * @example
 * return () => closeDeltaCoalescer(system, deltas);
 */
export function closeDeltaCoalescer(system: object, coalescer: DeltaCoalescer): void {
  coalescer.discard();
  channels.get(system)?.close(coalescer);
}
