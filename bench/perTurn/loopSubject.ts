/**
 * What every synchronous per-turn subject offers: take an event the way it arrives in production,
 * take one I/O tick's worth of deltas, and say where it stands, so the benchmark can check that
 * each subject really did the work it was timed on.
 */
import type { AgentEvent, Message } from '../../src/index.js';
import type { Delta, TurnScript } from './conversation.js';

export interface LoopSubject {
  /** Delivers one event the way this subject receives it (send, sendBack, handleEvent, reduce). */
  deliver(event: AgentEvent): void;
  /** Delivers the deltas one network read produced. */
  deliverTick(deltas: readonly Delta[]): void;
  /** The current top-level state, in the chart's names. */
  readonly state: string;
  /** Length of the transcript. */
  readonly messageCount: number;
  /** Characters of streamed text the subject's listener received. */
  readonly textSeen: number;
}

/** A factory making one subject that starts from `prior` messages. */
export type SubjectFactory = (prior: readonly Message[]) => LoopSubject;

/** Runs the scripted turn: UserInput → deltas → 2 tool calls → 2 ToolCompleted → text → idle. */
export function runTurn(subject: LoopSubject, script: TurnScript): void {
  subject.deliver({ type: 'UserInput', message: script.user });
  subject.deliverTick(script.firstDeltas);
  subject.deliver({ type: 'LlmCompleted', response: script.firstResponse });
  for (const result of script.toolResults) subject.deliver(result);
  subject.deliverTick(script.secondDeltas);
  subject.deliver({ type: 'LlmCompleted', response: script.secondResponse });
}

/** Throws unless the subject ended the turn idle with the 4 new messages appended. */
export function checkTurnDone(subject: LoopSubject, priorCount: number, label: string): void {
  if (subject.state !== 'WaitingForUserInput' || subject.messageCount !== priorCount + 4) {
    throw new Error(
      `${label}: after a turn expected WaitingForUserInput with ${priorCount + 4} messages, got ${subject.state} with ${subject.messageCount}`,
    );
  }
}
