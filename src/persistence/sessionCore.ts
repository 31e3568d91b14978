/**
 * Pure mode, durable: `AgentCore` with every event recorded in a session store before its
 * actions are handed back, side-effect starts recorded before they start, and checkpoints at rest.
 * What a caller that runs its own loop (a job queue, a durable-execution engine) builds on.
 */
import {
  type AgentAction,
  type AgentCore,
  type AgentEvent,
  checkEvent,
  type EffectStart,
  type ResumeEvent,
} from '../machine/index.js';
import { type OpenSessionOptions, openSession } from './openSession.js';
import type { SessionRecorder } from './sessionRecorder.js';
import type { SessionStore } from './sessionStore.js';

/**
 * A durable pure-mode session. Feed events through `handleEvent` (which records them), record
 * each side effect with `started` before starting it (a retry backoff included), and perform the
 * actions it returns.
 *
 * @example
 * const session = await SessionCore.open(store, 'alice-1', { config });
 * let actions = session.resume ? await session.handleEvent(session.resume) : [];
 * actions = await session.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
 * for (const action of actions) {
 *   if (action.type === 'SendLlmRequest') {
 *     await session.started({ effect: 'llm' });
 *     // … stream the request, feeding each event back through session.handleEvent
 *   }
 * }
 */
export class SessionCore {
  readonly #core: AgentCore;
  readonly #recorder: SessionRecorder;
  readonly #resume: ResumeEvent | undefined;
  readonly #created: boolean;

  private constructor(
    core: AgentCore,
    recorder: SessionRecorder,
    resume: ResumeEvent | undefined,
    created: boolean,
  ) {
    this.#core = core;
    this.#recorder = recorder;
    this.#resume = resume;
    this.#created = created;
  }

  /**
   * Opens the session `sessionId` in `store`, creating it if it does not exist.
   *
   * @example
   * const session = await SessionCore.open(createSqliteSessionStore({ path: 'sessions.db' }), 'alice-1');
   */
  static async open(
    store: SessionStore,
    sessionId: string,
    options: OpenSessionOptions = {},
  ): Promise<SessionCore> {
    const opened = await openSession(store, sessionId, options);
    return new SessionCore(opened.core, opened.recorder, opened.resume, opened.created);
  }

  /** The chart, for reading (`state`, `context`, `snapshot()`); feed it through `handleEvent`. */
  get core(): AgentCore {
    return this.#core;
  }

  /** The session's id. */
  get sessionId(): string {
    return this.#recorder.log.sessionId;
  }

  /** Whether the session was created by this `open`. */
  get created(): boolean {
    return this.#created;
  }

  /**
   * The `Resume` to feed first: the session was stored with work in flight (a model call, tool
   * calls, the hook, a backoff, an approval, calls an interrupt was waiting for). `undefined`
   * when it was at rest.
   */
  get resume(): ResumeEvent | undefined {
    return this.#resume;
  }

  /**
   * Feeds one event to the chart, records it (a model call's stream is held, and kept only where
   * it matters) with a checkpoint when the chart comes to rest, and returns the chart's actions
   * once that is stored. Rejects only when the store fails; the session must then be opened
   * again.
   *
   * @example
   * const actions = await session.handleEvent({ type: 'ToolCompleted', callId, outcome });
   */
  async handleEvent(event: AgentEvent): Promise<AgentAction[]> {
    const core = this.#core;
    // What is recorded is the plain-JSON copy the chart takes, never the caller's object, which
    // it may change before an asynchronous store writes it.
    const checked = checkEvent(event);
    if (!checked.ok) return core.handleEvent(event);
    const taken = checked.event;
    const actions = core.takeCheckedEvent(taken, event);
    // An event the chart refuses changes nothing, so there is nothing to record.
    if (actions === null) return [];
    const written = this.#recorder.event(taken, { state: core.state, context: core.context });
    if (written !== undefined) await written;
    return actions;
  }

  /**
   * Records that a side effect is about to start; start it once this resolves.
   *
   * @example
   * await session.started({ effect: 'tool', callId: call.id, name: call.name, mutating: true });
   */
  started(start: EffectStart): Promise<void> {
    return this.#recorder.started(start);
  }
}
