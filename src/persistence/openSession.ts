/**
 * The reading side of a durable session: loads it from a store, checks it was recorded by this
 * chart, rebuilds the transcript from its records, restores the latest checkpoint and replays the
 * log since then through pure mode. What comes out is the chart exactly as it last stood, the log
 * positioned to go on, and the `Resume` that restarts what was in flight.
 */
import {
  type AgentConfig,
  AgentCore,
  type AgentSnapshot,
  AgentStatechartError,
  checkSnapshot,
  type Message,
  type ResumeEvent,
} from '../machine/index.js';
import { CHART_VERSION, newSessionHeader, PACKAGE_VERSION } from './chartVersion.js';
import { materializeTranscript, resumeFacts } from './sessionRecords.js';
import { SessionRecorder } from './sessionRecorder.js';
import { SessionLog } from './sessionLog.js';
import type { SessionHeader, SessionStore } from './sessionStore.js';
import { sessionExists, sessionNotFound } from './storeRules.js';

/**
 * Options of {@link openSession}.
 *
 * @example
 * const options: OpenSessionOptions = { config: { maxRetries: 3 }, metadata: { owner: 'alice' } };
 */
export interface OpenSessionOptions {
  /** The chart's configuration (the same as the session was recorded with, or a compatible one). */
  config?: AgentConfig;
  /** Kept in the header of a session created now. */
  metadata?: Record<string, unknown>;
  /** Claim the session (fence out earlier writers) before going on. Default false. */
  claim?: boolean;
  /** The clock for entry times and the time left of a retry backoff. Default `Date.now`. */
  clock?: () => number;
  /** Refuse to create a session that does not exist yet. Default false. */
  mustExist?: boolean;
  /**
   * The transcript a session created now starts from (copied; a `tool_use` with no result is
   * answered as interrupted). Stored at once, before `openSession` resolves. Refused with
   * `INVALID_OPTION` for a session that has a log already: it starts from its own.
   */
  messages?: Message[];
}

/**
 * A session as opened: the chart in pure mode, the recorder (and its log) to record into,
 * whether it was created now, and the `Resume` to feed first when work was in flight
 * (`undefined` at rest).
 *
 * @example
 * const { core, recorder, resume } = await openSession(store, 'alice-1');
 */
export interface OpenedSession {
  header: SessionHeader;
  core: AgentCore;
  recorder: SessionRecorder;
  created: boolean;
  resume: ResumeEvent | undefined;
}

/**
 * Opens a session: creates it when the store has none by that id (unless `mustExist`), else
 * rebuilds it. Throws `SESSION_VERSION_MISMATCH` for a log another version of the chart recorded,
 * `SESSION_CORRUPT` for one that cannot be read (nothing is changed either way).
 *
 * @example
 * const { core, recorder, resume } = await openSession(store, 'alice-1', { config });
 * if (resume) perform(core.handleEvent(resume)); // and record it: see SessionCore
 */
export async function openSession(
  store: SessionStore,
  sessionId: string,
  options: OpenSessionOptions = {},
): Promise<OpenedSession> {
  const config = options.config ?? {};
  const clock = options.clock ?? Date.now;
  let stored = await store.load(sessionId);
  let created = false;
  let createdHere = false;
  if (stored === undefined) {
    if (options.mustExist) throw sessionNotFound(sessionId);
    createdHere = await store.create(newSessionHeader(sessionId, clock(), options.metadata)).then(
      () => true,
      (error: unknown) => {
        // Another process created it meanwhile: open what it created.
        if ((error as AgentStatechartError).code !== 'SESSION_EXISTS') throw error;
        return false;
      },
    );
    stored = await store.load(sessionId);
    if (stored === undefined) {
      throw new AgentStatechartError(
        'STORE_FAILED',
        `session '${sessionId}' vanished as it was created`,
      );
    }
    created = stored.head === 0;
  }
  const what = `session '${sessionId}'`;
  if (stored.header.chartVersion !== CHART_VERSION) throw versionMismatch(what, stored.header);
  if (options.messages !== undefined && !createdHere) {
    // Seeded only by the call that created it: two callers seeding the same new id must not
    // both write a start.
    if (stored.head === 0 && stored.checkpoint === undefined) throw sessionExists(sessionId);
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sessionId}' has a log already, and starts from it: messages seed only a session created now (to start another from this one, fork it with forkSession)`,
    );
  }
  const epoch = options.claim ? await store.claim(sessionId) : undefined;
  const { checkpoint } = stored;
  const after = checkpoint?.seq ?? 0;
  const tail = stored.entries.filter((entry) => entry.seq > after);

  let core: AgentCore;
  if (checkpoint === undefined) {
    core = new AgentCore(config, options.messages ? { messages: options.messages } : {});
  } else {
    const messages = materializeTranscript(stored.transcript, stored.entries, what);
    const snapshot: AgentSnapshot = {
      version: 1,
      state: checkpoint.state,
      context: { ...checkpoint.context, messages },
    };
    const problem = checkSnapshot(snapshot);
    if (problem !== null)
      throw new AgentStatechartError('SESSION_CORRUPT', `${what}, checkpoint: ${problem}`);
    core = AgentCore.fromSnapshot(snapshot, config);
  }
  // The compactions the checkpoint's transcript had been through (none without one): the tail
  // replayed next may compact it again.
  const { compactions } = core.context.window;
  const malformed: string[] = [];
  const stopListening = core.onDiagnostic((diagnostic) => {
    if (diagnostic.code === 'MALFORMED_EVENT') malformed.push(diagnostic.message);
  });
  for (const entry of tail) {
    if (entry.kind === 'event') core.handleEvent(entry.data);
    if (malformed.length > 0) {
      throw new AgentStatechartError(
        'SESSION_CORRUPT',
        `${what}, entry ${entry.seq}: ${malformed[0]}`,
      );
    }
  }
  stopListening();
  const log = new SessionLog(
    store,
    sessionId,
    { head: stored.head, tail, checkpointed: checkpoint?.messageCount ?? 0, compactions, epoch },
    clock,
  );
  if (options.messages !== undefined && options.messages.length > 0) {
    // The transcript it starts from is stored before anything happens to the session.
    await log.record([], { state: core.state, context: core.context });
  }
  // The log says what had started; the chart says whether anything is left to resume.
  const facts = resumeFacts(tail, clock());
  const resume = core.accepts(facts) ? facts : undefined;
  return { header: stored.header, core, recorder: new SessionRecorder(log), created, resume };
}

/**
 * The refusal of a session another version recorded: which version that was (as far as its
 * header says), which this is, and what to do.
 */
function versionMismatch(what: string, header: SessionHeader): AgentStatechartError {
  const recorder =
    header.packageVersion === undefined
      ? 'a version of agent-statechart from before sessions noted theirs'
      : `agent-statechart ${header.packageVersion}`;
  const remedy =
    header.packageVersion === undefined
      ? 'the agent-statechart version that recorded it'
      : `agent-statechart ${header.packageVersion}`;
  return new AgentStatechartError(
    'SESSION_VERSION_MISMATCH',
    `${what} was recorded by ${recorder} (chart version ${header.chartVersion}); this is agent-statechart ${PACKAGE_VERSION} (chart version ${CHART_VERSION}), which cannot replay that log exactly as it was recorded; nothing was changed. Finish the session with ${remedy}, or start a new session`,
  );
}
