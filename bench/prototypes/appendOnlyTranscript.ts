/**
 * Prototype of a design change, measured, not adopted: a transcript that appends in O(1) while
 * every snapshot stays valid. Today each appended message copies the whole messages array
 * (`messages.concat([message])`, O(n)), so snapshots never share a mutable array. Here a snapshot
 * holds a shared, append-only array and its own length: appending to the newest snapshot pushes
 * in place; appending to an older one (a fork: a restored or replayed snapshot) copies its prefix
 * once. Readers see `messages.slice(0, length)`; the newest snapshot's view is the array itself.
 *
 * The cost of the change: `context.messages` stops being a plain array whose every entry belongs
 * to the snapshot, so `snapshot()` must write out the view, and code that reads the context
 * directly must use the view.
 */
import type { Message } from '../../src/index.js';

export interface TranscriptView {
  /** Shared by successive snapshots; only ever appended to. */
  readonly log: Message[];
  /** How many entries of `log` belong to this snapshot. */
  readonly length: number;
}

export function viewOf(messages: Message[]): TranscriptView {
  return { log: messages, length: messages.length };
}

export function append(view: TranscriptView, message: Message): TranscriptView {
  if (view.log.length === view.length) {
    view.log.push(message);
    return { log: view.log, length: view.length + 1 };
  }
  // A fork: someone appended to this log after this snapshot was taken.
  const log = view.log.slice(0, view.length);
  log.push(message);
  return { log, length: log.length };
}

/** The messages of one snapshot (the shared array itself for the newest one). */
export function messagesOf(view: TranscriptView): readonly Message[] {
  return view.log.length === view.length ? view.log : view.log.slice(0, view.length);
}
