/**
 * A fixed-capacity queue that drops its oldest item when full: what keeps an inspector's memory
 * flat however long a session runs.
 */
import { AgentStatechartError } from '../machine/index.js';

/**
 * Holds the last `capacity` items pushed, oldest first. `push` is O(1) and returns what it
 * evicted, so the caller can fold dropped history into a summary instead of losing it.
 *
 * @example
 * const ring = new RingBuffer<number>(2);
 * ring.push(1); ring.push(2);
 * ring.push(3); // → 1 (evicted)
 * ring.toArray(); // [2, 3]
 */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  #start = 0;
  #size = 0;

  /**
   * @example
   * const ring = new RingBuffer<string>(5_000);
   */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `a ring buffer needs a capacity of at least 1; got ${String(capacity)}`,
      );
    }
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  /** How many items it holds. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends `item`; when full, drops the oldest and returns it.
   *
   * @example
   * const evicted = ring.push(step);
   * if (evicted !== undefined) fold(evicted);
   */
  push(item: T): T | undefined {
    if (this.#size < this.capacity) {
      this.#items[(this.#start + this.#size) % this.capacity] = item;
      this.#size += 1;
      return undefined;
    }
    const evicted = this.#items[this.#start];
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
    return evicted;
  }

  /**
   * The item at `index` (0 is the oldest), or `undefined` out of range.
   *
   * @example
   * ring.at(ring.size - 1); // the newest
   */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#size) return undefined;
    return this.#items[(this.#start + index) % this.capacity];
  }

  /**
   * The items, oldest first.
   *
   * @example
   * for (const step of ring.toArray()) send(step);
   */
  toArray(): T[] {
    const result: T[] = [];
    for (let index = 0; index < this.#size; index += 1) result.push(this.at(index) as T);
    return result;
  }
}
