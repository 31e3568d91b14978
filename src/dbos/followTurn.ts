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
  const inTree = (sessionId: string) =>
    sessionId === root || sessionId.startsWith(`${root}/`) || named.has(sessionId);
  /** Subagent sessions named by an `idle` whose ids do not start with the root's (long ids). */
  const named = new Set<string>();
  const followed = new Set<string>();
  const ready: TurnStreamValue[] = [];
  let running = 0;
  let rootResting = false;
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
        ready.push({
          sessionId,
          ...(link === undefined ? {} : { subagent: link }),
          workflowId: id,
          value,
        });
        if (value.type === 'idle') {
          for (const subagent of value.subagents ?? []) named.add(subagent.sessionId);
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
    const prefixes = [`session:${root}`, ...[...named].map((id) => `session:${id}:`)];
    let found = false;
    for (const id of await source.drives(prefixes, since)) {
      const sessionId = sessionOfDrive(id);
      if (followed.has(id) || sessionId === undefined || !inTree(sessionId)) continue;
      follow(id, sessionId);
      found = true;
    }
    return found;
  };

  follow(workflowId, root);
  for (;;) {
    while (ready.length > 0) yield ready.shift()!;
    if (failure !== undefined) throw failure.error;
    const found = await discover();
    if (!found && rootResting && running === 0 && ready.length === 0) return;
    if (ready.length > 0 || failure !== undefined) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(notify, DISCOVERY_INTERVAL_MS);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
