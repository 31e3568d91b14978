/**
 * A stored session in the inspector: its log replayed through the chart into recorded steps, so
 * the page steps back and forth through a session that ran somewhere else — in another process,
 * last week, or up to the moment that process was killed. With `follow`, entries the session's
 * writer appends later are replayed as they are stored.
 */
import {
  type AgentConfig,
  agentMachine,
  AgentStatechartError,
  errorMessage,
  topStateOf,
} from '../machine/index.js';
import {
  CHART_VERSION,
  type SessionHeader,
  sessionNotFound,
  type SessionStore,
  type StoredEntry,
} from '../persistence/index.js';
import type { InspectionRecorder } from './inspectionRecorder.js';
import { SessionLogReplay } from './sessionLogReplay.js';

/**
 * Options of {@link inspectStoredSession}.
 *
 * @example
 * const options: InspectStoredSessionOptions = { config: { tools }, follow: true };
 */
export interface InspectStoredSessionOptions {
  /**
   * The configuration the session runs with (tools, permissions, limits), as given to
   * `createAgent` or `SessionCore.open`: the log holds what came from outside the chart, and the
   * chart's reading of it depends on the tools' `mutating` and on the permissions. A function is
   * given the session's header, to read the configuration from what the session stored.
   */
  config?: AgentConfig | ((header: SessionHeader) => AgentConfig);
  /** The name shown in the page. Default: the session id. */
  name?: string;
  /** Keep replaying what the session's writer appends. Default false. */
  follow?: boolean;
  /** How often to look for new entries when following, in ms. Default 250. */
  followIntervalMs?: number;
}

/**
 * A stored session shown by a recorder.
 *
 * @example
 * const view = await inspectStoredSession(inspector.recorder, store, 'alice-1');
 * console.log(view.agentId, view.head);
 */
export interface StoredSessionView {
  /** The session's agent id in the recorder (and the page). */
  readonly agentId: string;
  /** The seq of the last entry replayed. */
  readonly head: number;
  /**
   * What the replay could not vouch for: a checkpoint the replayed chart does not match (the
   * session ran with another configuration than `config`).
   */
  readonly warnings: string[];
  /** Replays the entries stored since the last read; resolves once they are in the recorder. */
  refresh(): Promise<void>;
  /** Stops following (the steps replayed so far stay). */
  stop(): void;
}

/**
 * The id a stored session's replay has in the recorder and the page: `stored:` and the session's
 * id (the page finds the session of an agent by it).
 *
 * @example
 * storedAgentId('alice-1'); // 'stored:alice-1'
 */
export function storedAgentId(sessionId: string): string {
  return `stored:${sessionId}`;
}

/**
 * Loads session `sessionId` from `store` into `recorder`: one step per event of its log (with
 * the microsteps it caused, and the time it was recorded), from the session's creation to its last
 * entry. Throws `SESSION_NOT_FOUND` for an unknown session and `SESSION_VERSION_MISMATCH` for one
 * recorded by another version of the chart, whose log this chart cannot read.
 *
 * @example
 * import { createSqliteSessionStore } from 'agent-statechart';
 * import { inspectStoredSession, startInspectorServer } from 'agent-statechart/inspect';
 *
 * const store = createSqliteSessionStore({ path: '.agent-statechart/sessions.db' });
 * const inspector = await startInspectorServer();
 * await inspectStoredSession(inspector.recorder, store, 'alice-1', { follow: true });
 * console.log(`step through it at ${inspector.url}`);
 */
export async function inspectStoredSession(
  recorder: InspectionRecorder,
  store: SessionStore,
  sessionId: string,
  options: InspectStoredSessionOptions = {},
): Promise<StoredSessionView> {
  const stored = await store.load(sessionId);
  if (stored === undefined) throw sessionNotFound(sessionId);
  const { header, checkpoint } = stored;
  if (header.chartVersion !== CHART_VERSION) {
    throw new AgentStatechartError(
      'SESSION_VERSION_MISMATCH',
      `session '${sessionId}' was recorded by another version of the chart (${header.chartVersion}; this one is ${CHART_VERSION}), whose log this one cannot replay`,
    );
  }
  const config = typeof options.config === 'function' ? options.config(header) : options.config;
  const replay = new SessionLogReplay(config);
  const warnings: string[] = [];
  const writer = recorder.recordAgent({
    id: storedAgentId(sessionId),
    name: options.name ?? sessionId,
    machine: agentMachine,
    startedAt: header.createdAt,
  });
  writer.step(replay.initialStep(header.createdAt));
  const feed = (entries: StoredEntry[]) => {
    for (const entry of entries) {
      const step = replay.next(entry);
      if (step !== undefined) writer.step(step);
      if (checkpoint !== undefined && entry.seq === checkpoint.seq) {
        const { value, context } = replay.snapshot;
        const state = topStateOf(value);
        if (state !== checkpoint.state || context.messages.length !== checkpoint.messageCount) {
          warnings.push(
            `the replay differs from the session's checkpoint at entry ${entry.seq} (${state} with ${context.messages.length} messages; stored: ${checkpoint.state} with ${checkpoint.messageCount}): the session runs with another configuration (tools, permissions, limits) than the one given`,
          );
        }
      }
    }
  };
  feed(await store.entries(sessionId));

  // Reads run one after another, each from where the last one ended.
  let reading: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    reading = reading
      .catch(() => undefined)
      .then(async () => feed(await store.entries(sessionId, { after: replay.seq })));
    return reading;
  };
  let timer: NodeJS.Timeout | undefined;
  if (options.follow) {
    timer = setInterval(() => {
      refresh().catch((error: unknown) => {
        clearInterval(timer);
        recorder.reportError(
          new AgentStatechartError(
            'STORE_FAILED',
            `stopped following session '${sessionId}': ${errorMessage(error)}`,
            { cause: error },
          ),
        );
      });
    }, options.followIntervalMs ?? 250);
    timer.unref();
  }
  return {
    agentId: writer.agentId,
    get head() {
      return replay.seq;
    },
    warnings,
    refresh,
    stop: () => clearInterval(timer),
  };
}
