/**
 * What the store tests write: entries holding real events (a user's input, its text telling the
 * entries apart) and checkpoints of a real chart's context, as a session writes them.
 */
import {
  AgentCore,
  type AgentEvent,
  type AgentStateName,
  type UserInputEvent,
} from '../../src/index.js';
import { checkpointContext } from '../../src/persistence/sessionRecords.js';
import type {
  Checkpoint,
  CheckpointContext,
  StoredEntry,
} from '../../src/persistence/sessionStore.js';

/** An entry holding `data`, an event as the chart takes it. */
export const event = (seq: number, data: AgentEvent, at = 2_000 + seq): StoredEntry => ({
  seq,
  at,
  kind: 'event',
  data,
});

/** A user's input: what most entries of these tests hold, its text telling them apart. */
export const userInput = (text: string): UserInputEvent => ({
  type: 'UserInput',
  message: { role: 'user', content: text },
});

/** The text of the user input an entry holds. */
export const inputText = (entry: StoredEntry): unknown =>
  entry.kind === 'event' && entry.data.type === 'UserInput' ? entry.data.message.content : entry;

/** A checkpoint as a session writes it: a real chart's context, with `retries` set to tell it apart. */
export function checkpoint(
  seq: number,
  state: AgentStateName,
  messageCount: number,
  retries = 0,
): Checkpoint {
  const context: CheckpointContext = { ...checkpointContext(new AgentCore().context), retries };
  return { seq, state, messageCount, context };
}
