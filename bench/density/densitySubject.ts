/**
 * What each subject of the density benchmark offers the measured process: a way to build one
 * agent against a Messages API base URL, and, per agent, the turn and a check that the turn
 * really happened (all text seen by the agent's listener, the transcript where it should be).
 */

/** One agent of a subject, built before the clock starts. */
export interface TurnAgent {
  /** Runs the agent turn (see agentTurn.ts) to its end. */
  runTurn(): Promise<void>;
  /** After the turn: `null` when it did the whole turn, else what is wrong. */
  check(): string | null | Promise<string | null>;
  /** Releases what the agent holds (untimed). */
  close?(): Promise<void>;
}

/** A subject: builds agents that talk to the Messages API at `baseURL`. */
export interface DensitySubject {
  createAgent(baseURL: string, index: number): TurnAgent | Promise<TurnAgent>;
}

/** The API key every subject sends; the pacing server accepts any. */
export const API_KEY = 'bench-key';
