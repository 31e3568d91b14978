/**
 * The naive XState machine (bench/subjects/naiveMachine.ts) as a per-turn subject: its model
 * call and tools are stand-ins that do nothing, and the benchmark delivers every event itself.
 */
import { type Actor, createActor } from 'xstate';
import type { Message } from '../../src/index.js';
import { naiveMachine } from '../subjects/naiveMachine.js';
import type { Delta } from './conversation.js';
import type { LoopSubject } from './loopSubject.js';

/** A started naive actor; its `DisplayMessage` listener counts the text. */
export function naiveXstateSubject(
  prior: readonly Message[],
): LoopSubject & { actor: Actor<typeof naiveMachine> } {
  const actor = createActor(naiveMachine, { input: { messages: prior.slice() } });
  let textSeen = 0;
  actor.on('DisplayMessage', (action) => {
    textSeen += action.text.length;
  });
  actor.start();
  return {
    actor,
    deliver: (event) => actor.send(event),
    deliverTick(deltas: readonly Delta[]) {
      // Naive: one send per delta, however many arrive in one read.
      for (const delta of deltas) actor.send(delta);
    },
    get state() {
      return String(actor.getSnapshot().value);
    },
    get messageCount() {
      return actor.getSnapshot().context.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}
