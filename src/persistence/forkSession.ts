/**
 * Forking a stored session: a new session that starts from another's history, up to a point
 * where that session was at rest, and goes its own way from there. The original is only read.
 */
import {
  type AgentConfig,
  type AgentCore,
  AgentStatechartError,
  atRest,
  type Message,
} from '../machine/index.js';
import { openSession } from './openSession.js';
import type { SessionStore } from './sessionStore.js';
import { sessionExists } from './storeRules.js';

/**
 * Options of {@link forkSession}.
 *
 * @example
 * const options: ForkSessionOptions = { at: 4, metadata: { title: 'try the other fix' } };
 */
export interface ForkSessionOptions {
  /**
   * How many messages of the original to copy: a point where it was at rest, before one of its
   * turns began (see `restPoints`). Default: the latest one.
   */
  at?: number;
  /** The chart's configuration, to read the original back and to start the fork with. */
  config?: AgentConfig;
  /** Kept in the fork's header, beside `forkedFrom`. */
  metadata?: Record<string, unknown>;
}

/**
 * What {@link forkSession} made: the new session's id, how many messages it starts from, and
 * the points the original could have been forked at.
 */
export interface ForkedSession {
  sessionId: string;
  messageCount: number;
  restPoints: number[];
}

/**
 * Creates session `newId` in `store` from the history of session `sourceId`: its transcript up
 * to the latest point where it was at rest (or the one `at` names), stored as the fork's start.
 * The fork's header notes `forkedFrom: { sessionId, messageCount }`. Refused with
 * `SESSION_NOT_FOUND` (no such original), `SESSION_EXISTS` (`newId` is taken) or
 * `INVALID_OPTION` (`at` is no rest point: the message says which are).
 *
 * @example
 * const fork = await forkSession(store, 'fix-tests', 'fix-tests-2');
 * const agent = createAgent({ workspace, store, sessionId: fork.sessionId });
 */
export async function forkSession(
  store: SessionStore,
  sourceId: string,
  newId: string,
  options: ForkSessionOptions = {},
): Promise<ForkedSession> {
  const config = options.config ?? {};
  const source = await openSession(store, sourceId, { config, mustExist: true });
  const restPoints = restPointsOf(source.core);
  const at = options.at ?? restPoints[restPoints.length - 1]!;
  if (!restPoints.includes(at)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sourceId}' was not at rest after ${at} messages; it can be forked at ${restPoints.join(', ')}`,
    );
  }
  if ((await store.load(newId)) !== undefined) throw sessionExists(newId);
  const messages: Message[] = source.core.context.messages.slice(0, at);
  await openSession(store, newId, {
    config,
    messages,
    metadata: { ...options.metadata, forkedFrom: { sessionId: sourceId, messageCount: at } },
  });
  return { sessionId: newId, messageCount: at, restPoints };
}

/**
 * The message counts at which an agent's transcript stood while it waited for input: before
 * each turn's input, and its whole length when it waits now.
 */
function restPointsOf(core: AgentCore): number[] {
  const { messages } = core.context;
  const points = [0];
  messages.forEach((message, index) => {
    if (index > 0 && isTurnInput(message)) points.push(index);
  });
  if (atRest(core.stateValue, core.context) && points.at(-1) !== messages.length) {
    points.push(messages.length);
  }
  return points;
}

/** A user message that starts a turn: input, not the results of tool calls. */
function isTurnInput(message: Message): boolean {
  if (message.role !== 'user') return false;
  return (
    typeof message.content === 'string' ||
    !message.content.some((block) => block.type === 'tool_result')
  );
}
