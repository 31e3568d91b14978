/**
 * Where a stored session sits in the tree of agents, read from the store alone: a subagent's
 * session names its parent's in its header (see `subagentLinkOf`), so the sessions above one and
 * the sessions of its own subagents are found among the store's sessions. The inspector page
 * shows it over a stored session, each of those sessions a link that opens it.
 */
import {
  type SessionStore,
  type SessionSummary,
  type SubagentLink,
  subagentLinkOf,
} from '../persistence/index.js';

/**
 * A session above the one shown: its parent, its parent's parent, and so on up to a session that
 * is no subagent's.
 *
 * @example
 * const ancestor: SessionAncestor = { sessionId: 'alice-1', agent: null, callId: null, stored: true };
 */
export interface SessionAncestor {
  sessionId: string;
  /** The agent that ran it, when it is a subagent's session itself; else `null`. */
  agent: string | null;
  /** The task call of its own parent it answers, when it is a subagent's session; else `null`. */
  callId: string | null;
  /** Whether the store holds it (a parent's session may have been removed since). */
  stored: boolean;
}

/**
 * A session of one of the session's subagents, as of its last checkpoint.
 *
 * @example
 * const child: SubagentSession = {
 *   sessionId: 'alice-1/toolu_1', agent: 'reviewer', callId: 'toolu_1',
 *   state: 'WaitingForUserInput', messageCount: 4, createdAt: 0, updatedAt: 0,
 * };
 */
export interface SubagentSession {
  sessionId: string;
  /** The agent that ran the task. */
  agent: string;
  /** The task call of the session shown that it answers. */
  callId: string;
  /** The chart's state at its last checkpoint; `null` before its first. */
  state: string | null;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * Where a stored session sits in the tree of agents: the sessions above it, top first (the last
 * one is its parent), and its subagents' sessions, in the order they were created.
 *
 * @example
 * const place = await sessionPlace(store, 'alice-1/toolu_1');
 * place?.parent?.sessionId; // 'alice-1'
 * place?.subagents.map((child) => `${child.agent}: ${child.sessionId}`);
 */
export interface SessionPlace {
  sessionId: string;
  /** What its header says of its parent, for a subagent's session; `null` for a top-level one. */
  parent: (SubagentLink & { stored: boolean }) | null;
  /** The sessions above it, the top one first and its parent last; empty for a top-level one. */
  ancestors: SessionAncestor[];
  subagents: SubagentSession[];
}

/** How far up the tree is followed: past the package's own depth, short of any loop. */
const MAX_ANCESTORS = 32;

/**
 * Where session `sessionId` of `store` sits in the tree of agents, or `undefined` when the store
 * holds no session by that id.
 *
 * @example
 * const place = await sessionPlace(store, 'alice-1');
 * for (const child of place?.subagents ?? []) console.log(child.agent, child.sessionId, child.state);
 */
export async function sessionPlace(
  store: SessionStore,
  sessionId: string,
): Promise<SessionPlace | undefined> {
  const sessions = await store.list();
  const byId = new Map(sessions.map((session) => [session.sessionId, session]));
  const self = byId.get(sessionId);
  if (self === undefined) return undefined;
  const link = subagentLinkOf(self.metadata);
  return {
    sessionId,
    parent: link === undefined ? null : { ...link, stored: byId.has(link.parentSessionId) },
    ancestors: ancestorsOf(link, byId, sessionId),
    subagents: sessions
      .flatMap((session) => {
        const child = subagentLinkOf(session.metadata);
        if (child?.parentSessionId !== sessionId || session.sessionId === sessionId) return [];
        return [subagentSession(session, child)];
      })
      .sort((a, b) => a.createdAt - b.createdAt),
  };
}

function ancestorsOf(
  link: SubagentLink | undefined,
  byId: ReadonlyMap<string, SessionSummary>,
  sessionId: string,
): SessionAncestor[] {
  const ancestors: SessionAncestor[] = [];
  const seen = new Set([sessionId]);
  let up = link;
  // Parents naming each other (never written by the package) end the walk where it loops.
  while (up !== undefined && !seen.has(up.parentSessionId) && ancestors.length < MAX_ANCESTORS) {
    seen.add(up.parentSessionId);
    const parent = byId.get(up.parentSessionId);
    const above = subagentLinkOf(parent?.metadata);
    ancestors.unshift({
      sessionId: up.parentSessionId,
      agent: above?.agent ?? null,
      callId: above?.callId ?? null,
      stored: parent !== undefined,
    });
    up = above;
  }
  return ancestors;
}

function subagentSession(session: SessionSummary, link: SubagentLink): SubagentSession {
  return {
    sessionId: session.sessionId,
    agent: link.agent,
    callId: link.callId,
    state: session.state ?? null,
    messageCount: session.messageCount,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}
