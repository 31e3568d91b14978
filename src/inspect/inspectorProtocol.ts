/**
 * What the inspector server records and streams to its page: per agent, a base snapshot and the
 * steps after it, each step carrying only what changed. The page rebuilds any step's context from
 * these, which is what makes time travel cheap and long sessions flat.
 */
import type { JsonValue } from './sanitizeForInspection.js';

/**
 * The status of an agent's actor after a step (XState's snapshot status).
 *
 * @example
 * const status: StepStatus = 'done'; // reached ShuttingDown
 */
export type StepStatus = 'active' | 'done' | 'error' | 'stopped';

/**
 * How a step's context differs from the previous one. Fields that grew by appending (the
 * transcript, streamed text) carry only what was appended, so a streaming delta costs the size of
 * the delta, not of the conversation.
 *
 * @example
 * const patch: ContextPatch = { extend: { streamingText: 'lo' } };
 * const next: ContextPatch = { set: { retries: 1 }, append: { messages: [{ role: 'user', content: 'hi' }] } };
 */
export interface ContextPatch {
  /** Fields replaced whole (sanitised); a field that disappeared is set to `null`. */
  set?: Record<string, JsonValue>;
  /** Array fields that grew: the items appended. */
  append?: Record<string, JsonValue[]>;
  /** String fields that grew: the text appended. */
  extend?: Record<string, string>;
}

/**
 * One step of an agent: a microstep of the chart (one event can cause several, through eventless
 * transitions such as `ProcessingLlmResponse`'s), or an event that changed no state.
 *
 * @example
 * const step: RecordedStep = {
 *   seq: 42,
 *   time: Date.now(),
 *   event: { type: 'LlmCompleted', response: { message: { role: 'assistant', content: 'Hi' } } },
 *   source: 'llm',
 *   value: 'ProcessingLlmResponse',
 *   status: 'active',
 *   patch: { set: { retries: 1 } },
 * };
 */
export interface RecordedStep {
  /** Server-wide, increasing: the SSE event id a reconnecting page resumes after. */
  seq: number;
  /** When it was recorded (ms since the epoch, server clock). */
  time: number;
  /** The event that caused it (sanitised); absent on a further microstep of the same event. */
  event?: JsonValue;
  /** The id of the child actor that sent the event (`llm`, a tool call id, `retryTimer`, …). */
  source?: string;
  /** `true` when this step continues the previous one's event (an eventless transition). */
  continued?: true;
  /**
   * What the chart told its caller in this step that the page shows, sanitised: a prompt it
   * dropped (`PromptDropped`, with the reason), which never reaches the transcript and so would
   * leave no other trace; a compaction (`Compacted`: why, how much it summarised, the summary),
   * which replaces the transcript's older part, and one that did not happen
   * (`CompactionSkipped`, with the reason). Other emitted actions are left out: a streamed delta
   * or a request would double every step's size for nothing the page draws.
   */
  emitted?: JsonValue[];
  /** The state value after the step, e.g. `{ CallingLlm: 'Streaming' }`. */
  value: JsonValue;
  status: StepStatus;
  patch?: ContextPatch;
}

/**
 * An agent as listed by the inspector.
 *
 * @example
 * const summary: AgentSummary = {
 *   id: 'x:0', name: 'agent 1', chartId: 'agent', startedAt: Date.now(), value: { CallingLlm: 'Streaming' }, status: 'active',
 * };
 */
export interface AgentSummary {
  /** The root actor's session id. */
  id: string;
  name: string;
  /** Which chart draws it (`GET /charts/<chartId>.svg`); `null` for an actor that is no machine. */
  chartId: string | null;
  startedAt: number;
  value: JsonValue;
  status: StepStatus;
}

/**
 * Where an agent stood before its oldest retained step: older steps were folded into it.
 *
 * @example
 * const base: AgentBase = { seq: 0, value: null, status: 'active', context: {} };
 */
export interface AgentBase {
  /** The last step folded in (0 if none). */
  seq: number;
  value: JsonValue;
  status: StepStatus;
  context: Record<string, JsonValue>;
}

/**
 * An agent's retained history: enough to show every step still in the ring.
 *
 * @example
 * const { summary, base, steps } = recorder.history('x:0')!;
 */
export interface AgentHistory {
  /** The seq of the agent's registration. */
  registeredSeq: number;
  summary: AgentSummary;
  base: AgentBase;
  steps: RecordedStep[];
}

/**
 * The SSE events the server sends (`event:` name → JSON `data:`).
 *
 * - `hello`: first on every connection; the server clock lets the page run countdowns;
 * - `agent`: an agent's full retained history; the page replaces whatever it had for it;
 * - `steps`: new steps, of any agents, in seq order (a page ignores steps it already has);
 * - `removed`: an agent dropped from the server (over `maxAgents`);
 * - `synced`: the initial replay is complete; `agentIds` lists every agent the server holds, so a
 *   page that reconnected drops the ones removed meanwhile.
 *
 * The last message of each batch carries the SSE id `<instance>:<seq>`, so a reconnecting
 * `EventSource` resumes after the last complete batch it saw.
 *
 * @example
 * const message: InspectorMessage = { event: 'removed', data: { agentId: 'x:0' } };
 */
export type InspectorMessage =
  | { event: 'hello'; data: { serverTime: number; maxSteps: number; instance: string } }
  | { event: 'agent'; data: AgentHistory }
  | { event: 'steps'; data: { items: { agentId: string; step: RecordedStep }[] } }
  | { event: 'removed'; data: { agentId: string } }
  | { event: 'synced'; data: { agentIds: string[] } };
