/**
 * The stored sessions an inspector page may open: any session of one store, replayed into the
 * page's recorder the first time it is asked for (and again once the recorder dropped it), and
 * where each sits in the tree of agents — so the page of a parent's session links to its
 * subagents' sessions, and theirs back to it. Read-only: nothing is written to the store.
 */
import { type AgentConfig, AgentStatechartError } from '../machine/index.js';
import { checkSessionId, type SessionHeader, type SessionStore } from '../persistence/index.js';
import type { InspectionRecorder } from './inspectionRecorder.js';
import { inspectStoredSession, type StoredSessionView } from './inspectStoredSession.js';
import { type SessionPlace, sessionPlace } from './sessionPlace.js';

/**
 * Options of {@link storedSessionCatalog}, and the inspector server's `sessions`.
 *
 * @example
 * const options: StoredSessionsOptions = { config: (header) => configFor(header.metadata), follow: true };
 */
export interface StoredSessionsOptions {
  /**
   * The configuration each session is replayed with (see `InspectStoredSessionOptions.config`):
   * one for all, or one read from each session's header (a subagent's session ran with its
   * agent's tools, not its parent's).
   */
  config?: AgentConfig | ((header: SessionHeader) => AgentConfig);
  /** Keep replaying what each session's writer appends. Default false. */
  follow?: boolean;
  /** How often to look for new entries when following, in ms. Default 250. */
  followIntervalMs?: number;
}

/**
 * The stored sessions of one store, as an inspector page opens them.
 *
 * @example
 * const catalog = storedSessionCatalog(new InspectionRecorder(), store, { follow: true });
 * const inspector = await startInspectorServer({ sessions: catalog });
 * const view = await catalog.open('alice-1');
 * const place = await catalog.place('alice-1');
 */
export interface StoredSessionCatalog {
  /** Where the sessions are replayed into: the inspector page's recorder. */
  readonly recorder: InspectionRecorder;
  /** The store the sessions are read from (never written to). */
  readonly store: SessionStore;
  /**
   * Replays session `sessionId` into the recorder, once: a session asked for again resolves with
   * the same view while the recorder keeps it, and is replayed anew after the recorder dropped it
   * (over its `maxAgents`). Resolves with `undefined` when the store holds no session by that id
   * (or the id could name none); throws `SESSION_VERSION_MISMATCH` as `inspectStoredSession` does.
   */
  open(sessionId: string): Promise<StoredSessionView | undefined>;
  /** Where the session sits in the tree of agents; `undefined` for an unknown id. */
  place(sessionId: string): Promise<SessionPlace | undefined>;
  /** Stops following every session opened (their steps stay in the recorder). */
  close(): void;
}

/**
 * The stored sessions of `store`, replayed into `recorder` as they are opened. Given to an
 * inspector server as `sessions`, its page opens any of them at `/?session=ID`, and shows each
 * one's place in the tree of agents with links to the sessions around it.
 *
 * @example
 * import { createSqliteSessionStore } from 'agent-statechart';
 * import {
 *   InspectionRecorder,
 *   startInspectorServer,
 *   storedSessionCatalog,
 * } from 'agent-statechart/inspect';
 *
 * const store = createSqliteSessionStore({ path: '.agent-statechart/sessions.db' });
 * const sessions = storedSessionCatalog(new InspectionRecorder(), store, { follow: true });
 * const inspector = await startInspectorServer({ sessions });
 * await sessions.open('alice-1');
 * console.log(`${inspector.url}?session=alice-1`); // its subagents' sessions are linked there
 */
export function storedSessionCatalog(
  recorder: InspectionRecorder,
  store: SessionStore,
  options: StoredSessionsOptions = {},
): StoredSessionCatalog {
  const opened = new Map<string, Promise<StoredSessionView | undefined>>();
  const byAgent = new Map<string, { sessionId: string; view: StoredSessionView }>();
  let closed = false;
  // A session the recorder dropped stops being followed, and is replayed anew when asked for.
  const stopWatching = recorder.subscribe((change) => {
    if (change.type !== 'removed') return;
    const dropped = byAgent.get(change.agentId);
    if (dropped === undefined) return;
    byAgent.delete(change.agentId);
    dropped.view.stop();
    opened.delete(dropped.sessionId);
  });

  const replay = async (sessionId: string): Promise<StoredSessionView | undefined> => {
    try {
      const view = await inspectStoredSession(recorder, store, sessionId, {
        ...(options.config === undefined ? {} : { config: options.config }),
        follow: options.follow === true && !closed,
        ...(options.followIntervalMs === undefined
          ? {}
          : { followIntervalMs: options.followIntervalMs }),
      });
      if (closed) view.stop();
      byAgent.set(view.agentId, { sessionId, view });
      return view;
    } catch (error) {
      if (error instanceof AgentStatechartError && error.code === 'SESSION_NOT_FOUND') {
        return undefined;
      }
      throw error;
    }
  };

  return {
    recorder,
    store,
    open(sessionId) {
      if (!isSessionId(sessionId)) return Promise.resolve(undefined);
      let view = opened.get(sessionId);
      if (view === undefined) {
        view = replay(sessionId);
        opened.set(sessionId, view);
        // An unknown or unreadable session is looked for again next time.
        const forget = () => {
          if (opened.get(sessionId) === view) opened.delete(sessionId);
        };
        view.then((found) => (found === undefined ? forget() : undefined), forget);
      }
      return view;
    },
    async place(sessionId) {
      return isSessionId(sessionId) ? sessionPlace(store, sessionId) : undefined;
    },
    close() {
      closed = true;
      stopWatching();
      for (const { view } of byAgent.values()) view.stop();
    },
  };
}

/** Whether `sessionId` could name a session at all: anything else is no session of the store. */
function isSessionId(sessionId: string): boolean {
  try {
    checkSessionId(sessionId);
    return true;
  } catch {
    return false;
  }
}
