/**
 * The writing side of a durable session: numbers entries, decides nothing, and writes them to the
 * store in order through one queue. A write that fails stops the queue for good: every later
 * write is refused with the same error, so the log never gets a gap, and whoever drives the
 * session learns of it (the session is then reopened from what the store holds).
 */
import {
  type AgentContext,
  AgentStatechartError,
  type AgentStateName,
  type EffectStart,
  errorMessage,
} from '../machine/index.js';
import { checkpointOf, type NewEntry, transcriptRecords } from './sessionRecords.js';
import type { SessionStore, SessionWrite, StoredEntry } from './sessionStore.js';

/**
 * Where a session's log stands when a writer takes it over.
 *
 * @example
 * const position: LogPosition = { head: 12, tail: [], checkpointed: 8, compactions: 0, epoch: undefined };
 */
export interface LogPosition {
  /** The seq of the last entry in the store. */
  head: number;
  /** The entries after the latest checkpoint. */
  tail: StoredEntry[];
  /** How many messages the latest checkpoint's transcript records cover. */
  checkpointed: number;
  /**
   * How many compactions the transcript had been through at the latest checkpoint
   * (`context.window.compactions`; 0 for a checkpoint from before the transcript had a window).
   */
  compactions: number;
  /** The writer's claim, checked on every write; `undefined` to write unfenced. */
  epoch: number | undefined;
}

/**
 * One session's log, as one writer appends to it.
 *
 * @example
 * await log.record([{ kind: 'event', data: event }], { state: core.state, context: core.context });
 */
export class SessionLog {
  readonly sessionId: string;
  readonly #store: SessionStore;
  readonly #epoch: number | undefined;
  readonly #clock: () => number;
  /** The last seq handed out. */
  #next: number;
  /** Entries since the latest checkpoint, with the objects the chart was given. */
  #tail: StoredEntry[];
  #checkpointed: number;
  /** The compactions the stored transcript records reflect. */
  #compactions: number;
  /** The end of the write queue (never rejects: failures are kept in #failure). */
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  #failure: AgentStatechartError | undefined;
  #reportFailure: (failure: AgentStatechartError) => void = () => undefined;
  /**
   * Resolves with the error of the first write that failed (a newer writer's claim, a store that
   * went away); pending for as long as every write succeeds. Whoever drives the session stops on
   * it: nothing it does from then on can be recorded.
   */
  readonly failed: Promise<AgentStatechartError> = new Promise((resolve) => {
    this.#reportFailure = resolve;
  });

  constructor(
    store: SessionStore,
    sessionId: string,
    position: LogPosition,
    clock: () => number = Date.now,
  ) {
    this.sessionId = sessionId;
    this.#store = store;
    this.#next = position.head;
    this.#tail = [...position.tail];
    this.#checkpointed = position.checkpointed;
    this.#compactions = position.compactions;
    this.#epoch = position.epoch;
    this.#clock = clock;
  }

  /** The seq of the last entry recorded (written or on its way). */
  get head(): number {
    return this.#next;
  }

  /** How many entries were recorded since the latest checkpoint. */
  get tailLength(): number {
    return this.#tail.length;
  }

  /**
   * Whether a compaction has replaced the start of `context`'s transcript since the latest
   * checkpoint: its transcript then no longer starts as the stored records say.
   *
   * @example
   * log.compactedSinceCheckpoint(core.context); // true after a `Compacted`, until a checkpoint
   */
  compactedSinceCheckpoint(context: Pick<AgentContext, 'window'>): boolean {
    return context.window.compactions !== this.#compactions;
  }

  /**
   * Records `entries`, and, when given, a checkpoint of the chart as it stands after them.
   * Resolves once all of it (and everything recorded before) is in the store.
   *
   * @example
   * await log.record([{ kind: 'event', data: event }], { state: core.state, context: core.context });
   */
  record(
    entries: readonly NewEntry[],
    checkpoint?: { state: AgentStateName; context: AgentContext },
  ): Promise<void> {
    if (entries.length === 0 && checkpoint === undefined) return this.flushed();
    const after = this.#next;
    const at = this.#clock();
    const stored = entries.map((entry): StoredEntry => ({ seq: ++this.#next, at, ...entry }));
    this.#tail.push(...stored);
    const write: SessionWrite = { after, entries: stored };
    if (this.#epoch !== undefined) write.epoch = this.#epoch;
    if (checkpoint !== undefined) {
      const { messages, window } = checkpoint.context;
      // A compaction replaced the transcript's start and moved every later message: the records
      // of the whole active transcript are written again (a store keeps one record per index, and
      // reads only those below the checkpoint's message count).
      const from = this.compactedSinceCheckpoint(checkpoint.context) ? 0 : this.#checkpointed;
      write.transcript = transcriptRecords(messages, from, this.#tail);
      write.checkpoint = checkpointOf(this.#next, checkpoint.state, checkpoint.context);
      this.#checkpointed = messages.length;
      this.#compactions = window.compactions;
      this.#tail = [];
    }
    return this.#enqueue(write);
  }

  /**
   * Records that a side effect is about to start; resolves once that (and all before it) is in
   * the store, which is when the effect may start.
   *
   * @example
   * await log.started({ effect: 'tool', callId: call.id, name: call.name, mutating: true });
   */
  started(start: EffectStart): Promise<void> {
    return this.record([{ kind: 'started', data: start }]);
  }

  /** Resolves once everything recorded so far is in the store; rejects if the log failed. */
  flushed(): Promise<void> {
    return this.#queue.then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  #enqueue(write: SessionWrite): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.#failure) throw this.#failure;
      try {
        await this.#store.append(this.sessionId, write);
      } catch (error) {
        this.#failure =
          error instanceof AgentStatechartError
            ? error
            : new AgentStatechartError(
                'STORE_FAILED',
                `session '${this.sessionId}' could not be written: ${errorMessage(error)}`,
                { cause: error },
              );
        this.#reportFailure(this.#failure);
        throw this.#failure;
      } finally {
        this.#pending -= 1;
      }
    };
    this.#pending += 1;
    // With nothing queued the write starts now, so a synchronous store has it on disk before the
    // caller goes on; otherwise it waits its turn.
    const done = this.#pending === 1 ? run() : this.#queue.then(run);
    this.#queue = done.catch(() => undefined);
    return done;
  }
}
