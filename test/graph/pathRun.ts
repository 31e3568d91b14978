/**
 * What every way of running a path reports, so the runs can be compared step by step: the
 * XState-level reference (`machineRun.ts`), pure mode (`coreRun.ts`) and actor mode
 * (`actorRun.ts`).
 */
import type { AgentAction, AgentContext, AgentStateValue } from '../../src/index.js';
import type { PathEvent } from './pathEvents.js';

/** Where a run stands. */
export interface RunView {
  /** Where the run is, nested states included. */
  state: AgentStateValue;
  /** `active`, `done` (shut down) or `error` (the machine itself failed: never allowed). */
  status: string;
  context: AgentContext;
}

/** What one event did. */
export interface StepResult extends RunView {
  /** False when the event changed nothing (the state does not take it). */
  accepted: boolean;
  /** The actions the chart asked for, in order. */
  actions: AgentAction[];
  /**
   * The state after each microstep, transient ones included (`ProcessingLlmResponse`), for the
   * runs that can see them.
   */
  passedThrough?: string[];
}

/** One way of running a path. */
export interface PathRun {
  readonly mode: string;
  view(): RunView;
  /**
   * Sends one concrete event; with `refusalExpected`, one the chart drops by design (it changes
   * nothing, and pure mode says it was not accepted).
   */
  send(event: PathEvent, refusalExpected?: boolean): StepResult;
  /** Problems the run found on its own (for example an actor that was not cancelled). */
  takeProblems(): string[];
  stop(): void;
}
