/**
 * Where a stored session's subagents keep their own sessions: in the same store, under an id
 * derived from the parent's session and the task call, so a parent resumed after a crash finds
 * the child session its task was running in (and the child resumes where it stopped, instead of
 * starting its work again). Each child's header names its parent, so the tree of agents can be
 * read back from the store alone.
 */
import { createHash } from 'node:crypto';
import {
  type AgentConfig,
  PERMISSION_MODES,
  type PermissionMode,
  subagentConfig,
} from '../machine/index.js';
import type { SessionSummary } from './sessionStore.js';

/**
 * What a subagent's session keeps of where it came from, in its header's metadata under
 * `subagent`: the parent's session, the task call it answers, the agent that ran it, how many
 * levels below the top agent it is (1 for a subagent of the top agent), the agents from the top
 * agent's subagent down to it, the top session, and the permission mode it started in (its
 * parent's as the task started; none when the agents run without one). With these, whoever reads
 * the session back starts its chart as the subagent's started (`subagentSessionConfig`).
 *
 * @example
 * const link: SubagentLink = {
 *   parentSessionId: 'alice-1', callId: 'toolu_1', agent: 'reviewer', depth: 1,
 *   agentPath: ['reviewer'], rootSessionId: 'alice-1', mode: 'default',
 * };
 */
export interface SubagentLink {
  parentSessionId: string;
  callId: string;
  agent: string;
  depth: number;
  /** The agents from the top agent's subagent down to this one: `depth` of them. */
  agentPath: string[];
  /** The top session of the tree. */
  rootSessionId: string;
  mode?: PermissionMode;
}

/**
 * The link of the session a task call of session `parentSessionId` (itself a subagent's when
 * `parent` is its link) runs its subagent in.
 *
 * @example
 * childLink('alice-1', undefined, { callId: 'toolu_1', agent: 'reviewer', mode: 'default' });
 */
export function childLink(
  parentSessionId: string,
  parent: SubagentLink | undefined,
  task: { callId: string; agent: string; mode?: PermissionMode | undefined },
): SubagentLink {
  return {
    parentSessionId,
    callId: task.callId,
    agent: task.agent,
    depth: (parent?.depth ?? 0) + 1,
    agentPath: [...(parent?.agentPath ?? []), task.agent],
    rootSessionId: parent?.rootSessionId ?? parentSessionId,
    ...(task.mode === undefined ? {} : { mode: task.mode }),
  };
}

/**
 * The chart config a subagent's session runs with, from its top session's (`top`): the top
 * agent's taken down the agents of the link, one level at a time, as each parent started its
 * child (`subagentConfig`), with `maxDepth` levels of subagents in all.
 *
 * @example
 * const config = subagentSessionConfig(workerConfig, subagentLinkOf(header.metadata)!, 2);
 */
export function subagentSessionConfig(
  top: AgentConfig,
  link: Pick<SubagentLink, 'agentPath' | 'mode'>,
  maxDepth: number,
): AgentConfig {
  let config = top;
  for (const [index, agent] of link.agentPath.entries()) {
    config = subagentConfig(config, { agent, mode: link.mode }, maxDepth - index);
  }
  return config;
}

/** The longest session id a store takes. */
const MAX_ID_LENGTH = 200;

/**
 * The id of the session a task call's subagent runs in: the parent's id and the call's, joined
 * with `/`; when that would be too long for a session id, a digest of the two in its place (still
 * the same for the same parent and call).
 *
 * @example
 * subagentSessionId('alice-1', 'toolu_1'); // 'alice-1/toolu_1'
 */
export function subagentSessionId(parentSessionId: string, callId: string): string {
  const joined = `${parentSessionId}/${callId}`;
  if (joined.length <= MAX_ID_LENGTH) return joined;
  const digest = createHash('sha256').update(parentSessionId).update('\0').update(callId);
  return `subagent-${digest.digest('hex').slice(0, 40)}`;
}

/**
 * The link a session's metadata names, when it is a subagent's session (one whose fields are
 * not all there, or not of their kind, is none).
 *
 * @example
 * subagentLinkOf(stored.header.metadata)?.parentSessionId; // 'alice-1'
 */
export function subagentLinkOf(
  metadata: Record<string, unknown> | undefined,
): SubagentLink | undefined {
  const link = metadata?.subagent;
  if (typeof link !== 'object' || link === null) return undefined;
  const { parentSessionId, callId, agent, depth, agentPath, rootSessionId, mode } = link as Record<
    string,
    unknown
  >;
  if (typeof parentSessionId !== 'string' || typeof callId !== 'string') return undefined;
  if (typeof agent !== 'string' || typeof rootSessionId !== 'string') return undefined;
  if (!Number.isInteger(depth) || (depth as number) < 1) return undefined;
  const path =
    Array.isArray(agentPath) &&
    agentPath.length === depth &&
    agentPath.at(-1) === agent &&
    agentPath.every((name) => typeof name === 'string');
  if (!path) return undefined;
  const known = (PERMISSION_MODES as readonly unknown[]).includes(mode);
  if (mode !== undefined && !known) return undefined;
  return {
    parentSessionId,
    callId,
    agent,
    depth: depth,
    agentPath: agentPath,
    rootSessionId,
    ...(known ? { mode: mode as PermissionMode } : {}),
  };
}

/**
 * The sessions as a tree: each top-level session (one that is no subagent's, or whose parent is
 * not among them) followed by its subagents' sessions, depth first, in the order given.
 *
 * @example
 * for (const { session, depth } of sessionTree(await store.list())) console.log('  '.repeat(depth) + session.sessionId);
 */
export function sessionTree(
  sessions: readonly SessionSummary[],
): Array<{ session: SessionSummary; depth: number; link: SubagentLink | undefined }> {
  const ids = new Set(sessions.map((session) => session.sessionId));
  const children = new Map<string, SessionSummary[]>();
  const roots: SessionSummary[] = [];
  for (const session of sessions) {
    const parent = subagentLinkOf(session.metadata)?.parentSessionId;
    if (parent === undefined || !ids.has(parent) || parent === session.sessionId) {
      roots.push(session);
      continue;
    }
    children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  const tree: Array<{ session: SessionSummary; depth: number; link: SubagentLink | undefined }> =
    [];
  const visit = (session: SessionSummary, depth: number, seen: Set<string>) => {
    if (seen.has(session.sessionId)) return;
    seen.add(session.sessionId);
    tree.push({ session, depth, link: subagentLinkOf(session.metadata) });
    for (const child of children.get(session.sessionId) ?? []) visit(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const root of roots) visit(root, 0, seen);
  // Parents naming each other (never written by the package) still list every session once.
  for (const session of sessions) visit(session, 0, seen);
  return tree;
}
