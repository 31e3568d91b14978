/**
 * A `SessionStore` that hands every call to another store and counts what each `append` asks it
 * to keep, as the JSON text a store writes: log entries (events from outside the chart, and
 * effect starts), transcript records and the checkpoint. The logical bytes of a turn, before
 * the database adds its pages, indexes and journal.
 */
import type { SessionStore, SessionWrite } from '../../src/index.js';

/** Bytes written, by what they hold. */
export interface WrittenBytes {
  /** Entries of kind `event`: input, model responses, tool outcomes. */
  events: number;
  /** Entries of kind `started`: a side effect about to start. */
  starts: number;
  transcriptRecords: number;
  checkpoint: number;
  /** `append` calls: one transaction each. */
  writes: number;
}

export function noBytes(): WrittenBytes {
  return { events: 0, starts: 0, transcriptRecords: 0, checkpoint: 0, writes: 0 };
}

export function totalBytes(bytes: WrittenBytes): number {
  return bytes.events + bytes.starts + bytes.transcriptRecords + bytes.checkpoint;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function count(bytes: WrittenBytes, write: SessionWrite): void {
  bytes.writes += 1;
  for (const entry of write.entries) {
    if (entry.kind === 'event') bytes.events += jsonBytes(entry);
    else bytes.starts += jsonBytes(entry);
  }
  for (const record of write.transcript ?? []) bytes.transcriptRecords += jsonBytes(record);
  if (write.checkpoint !== undefined) bytes.checkpoint += jsonBytes(write.checkpoint);
}

/** Wraps `store`; `bytes` is the running count (reset it by assigning `noBytes()`). */
export function countingStore(store: SessionStore): SessionStore & { bytes: WrittenBytes } {
  const counting = {
    bytes: noBytes(),
    create: (header) => store.create(header),
    claim: (sessionId) => store.claim(sessionId),
    async append(sessionId, write) {
      await store.append(sessionId, write);
      count(counting.bytes, write);
    },
    load: (sessionId) => store.load(sessionId),
    entries: (sessionId, options) => store.entries(sessionId, options),
    list: (options) => store.list(options),
    delete: (sessionId) => store.delete(sessionId),
    close: () => store.close(),
  } satisfies SessionStore & { bytes: WrittenBytes };
  return counting;
}
