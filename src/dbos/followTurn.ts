/**
 * One stream for a turn and every subagent it hands tasks to. On the workers each session is
 * driven by drives of its own, each with its own stream, and a parent's drive rests while its
 * subagents work; a reader that wants the whole turn follows the drives of the session the turn
 * was sent to and of the subagent sessions below it, as the queue starts them — the drive a
 * subagent's answer wakes, and the drive an approval sent to a subagent starts, included.
 */
import { AgentStatechartError } from '../machine/index.js';
import { type SubagentLink, subagentLinkOf } from '../persistence/index.js';
import type { DriveStreamValue } from './driveSession.js';
import { sessionOfDrive } from './driveIds.js';

/**
 * A value of a turn's stream: what one drive of the turn's tree of sessions streamed, with the
 * session and drive it came from.
 *
 * @example
 * for await (const { subagent, value } of client.followTurn(workflowId)) {
 *   const who = subagent === undefined ? 'lead' : `${subagent.agentPath.join(' › ')}`;
 *   if (value.type === 'text') process.stdout.write(`[${who}] ${value.text}`);
 * }
 */
export interface TurnStreamValue {
  /** The session whose drive streamed it: the turn's own, or a subagent's. */
  sessionId: string;
  /** A subagent's link to its parent (its agent, its task call, its depth); absent for the turn's own session. */
  subagent?: SubagentLink;
  /** The drive that streamed it. */
  workflowId: string;
  value: DriveStreamValue;
}

/** What following a turn reads: drives' streams, the queue's drives, and sessions' headers. */
export interface TurnSource {
  events(workflowId: string): AsyncIterable<DriveStreamValue>;
  /** When a drive was enqueued (ms since the epoch), or `undefined` for an unknown drive. */
  enqueuedAt(workflowId: string): Promise<number | undefined>;
  /** The drives whose ids start with one of `prefixes`, enqueued at `since` or later, oldest first. */
  drives(prefixes: string[], since: number): Promise<string[]>;
  /** The header metadata a session was created with. */
  metadataOf(sessionId: string): Promise<Record<string, unknown> | undefined>;
}

/** How often the queue is asked for drives of the turn not yet followed. */
const DISCOVERY_INTERVAL_MS = 200;

/**
 * Follows the drive `workflowId` of a session and every drive of the subagent sessions below it
 * that the queue starts from then on, merged in the order their values arrive, each tagged with
 * its session. Ends once the session's own drive rests with no subagent at work and every drive
 * followed has ended: the turn is over, or waits for the session's own approvals or answers.
 *
 * @example
 * const { workflowId } = await client.send('alice-1', { type: 'UserInput', message });
 * for await (const { sessionId, value } of followTurn(source, workflowId)) {
 *   if (value.type === 'approvalRequest') await client.send(sessionId, approve(value.call));
 * }
 */
export async function* followTurn(
  source: TurnSource,
  workflowId: string,
): AsyncGenerator<TurnStreamValue> {
  const root = sessionOfDrive(workflowId);
  const since = await source.enqueuedAt(workflowId);
  if (root === undefined || since === undefined) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `followTurn follows a drive of a session (a workflow id client.send answered); ${JSON.stringify(workflowId)} is none`,
    );
  }
  /** The turn's session, and subagent sessions whose ids do not start with its own (long ids). */
  const tops = new Set<string>([root]);
  const inTree = (sessionId: string) =>
    [...tops].some((top) => sessionId === top || sessionId.startsWith(`${top}/`));
  const followed = new Set<string>();
  const ready: TurnStreamValue[] = [];
  let running = 0;
  let rootResting = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const follow = (id: string, sessionId: string) => {
    followed.add(id);
    running++;
    void (async () => {
      const link =
        sessionId === root ? undefined : subagentLinkOf(await source.metadataOf(sessionId));
      for await (const value of source.events(id)) {
        // A reader that stopped reading the turn stops its drives' readers too.
        if (closed) break;
        ready.push({
          sessionId,
          ...(link === undefined ? {} : { subagent: link }),
          workflowId: id,
          value,
        });
        if (value.type === 'idle') {
          for (const subagent of value.subagents ?? []) {
            if (!inTree(subagent.sessionId)) tops.add(subagent.sessionId);
          }
          if (sessionId === root) rootResting = value.subagents === undefined;
        }
        notify();
      }
    })()
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        running--;
        notify();
      });
  };
  /** Starts following the tree's drives the queue has that are not followed yet. */
  const discover = async () => {
    let found = false;
    const prefixes = [...tops].map((top) => `session:${top}`);
    for (const id of await source.drives(prefixes, since)) {
      const sessionId = sessionOfDrive(id);
      if (followed.has(id) || sessionId === undefined || !inTree(sessionId)) continue;
      follow(id, sessionId);
      found = true;
    }
    return found;
  };

  follow(workflowId, root);
  let discovered = Date.now();
  try {
    for (;;) {
      while (ready.length > 0) yield ready.shift()!;
      if (failure !== undefined) throw failure.error;
      const settled = rootResting && running === 0;
      // The queue is asked at most once an interval, and once more before the turn is over.
      if (settled || Date.now() - discovered >= DISCOVERY_INTERVAL_MS) {
        discovered = Date.now();
        const found = await discover();
        if (!found && settled && ready.length === 0 && running === 0) return;
      }
      if (ready.length > 0 || failure !== undefined || (rootResting && running === 0)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(notify, DISCOVERY_INTERVAL_MS - (Date.now() - discovered));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    closed = true;
  }
}
