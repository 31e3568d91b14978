/**
 * Subagents on the workers: a task call's subagent runs in a session of its own (stored beside
 * its parent's, as `subagentSessionId(parent, callId)`), driven like any session — by its own
 * drives, on whichever worker dequeues them — and its parent waits for it in its chart's own
 * `Subagents.Running` state, recorded in its log, not in a workflow that blocks.
 *
 * - A parent's step that meets a `StartSubagent` records the task as started, creates the child's
 *   session (its header links it to the parent), and puts the task's prompt in the child's inbox
 *   with the child's first drive, in one transaction (an idempotency key made from the call id,
 *   so a step run again starts nothing twice). A child already at rest with its answer is taken
 *   instead: the task call's `ToolCompleted`, with what the child used.
 * - A parent whose every open piece of work is a task whose child is still at work rests.
 * - A child's drive that rests with its answer enqueues the drive of its parent that takes it
 *   (one workflow id per task call); the queue runs it after whatever drive of the parent is
 *   running then, so a wake is never lost.
 * - An interrupt (or a shutdown) of the parent is passed on to the children of the tasks it
 *   cancels, through their inboxes.
 *
 * A child's chart config comes from the worker's and the link in its header — the agents from
 * the top session down to it and the permission mode its task started in — so it is the same on
 * every open and on every worker, and its log replays exactly.
 */
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentEvent,
  errorMessage,
  errorOutcome,
  isSubagentCall,
  lastResponseText,
  subagentUsageOf,
  type ToolCompletedEvent,
} from '../machine/index.js';
import {
  childLink,
  newSessionHeader,
  SessionCore,
  type SessionStore,
  type StoredSession,
  type SubagentLink,
  subagentLinkOf,
  subagentSessionConfig,
  subagentSessionId,
} from '../persistence/index.js';
import { type SpanParent, withTraceParent } from '../telemetry/index.js';
import { subagentWakeWorkflowId } from './driveIds.js';
import type { SendOptions } from './sessionClient.js';
import type { SessionInbox } from './sessionInbox.js';

/**
 * A task call whose subagent is at work, as a drive's result names it: the subagent's session
 * (send it its approvals), the drive that started it on its task (its stream, its result), and
 * the drive of the parent that takes its answer once it has one.
 *
 * @example
 * const running: RunningSubagent = {
 *   callId: 'toolu_1', agent: 'reviewer', sessionId: 'alice-1/toolu_1',
 *   workflowId: 'session:alice-1/toolu_1:input:1', wakeWorkflowId: 'session:alice-1:task:toolu_1',
 * };
 */
export interface RunningSubagent {
  callId: string;
  agent: string;
  /** The subagent's session. */
  sessionId: string;
  /** The drive the task's prompt enqueued in the subagent's session. */
  workflowId: string;
  /** The drive of this session enqueued once the subagent rests with its answer. */
  wakeWorkflowId: string;
}

/**
 * What a drive starts other sessions' drives with: the worker's client.
 *
 * @example
 * const drives: SubagentDrives = {
 *   send: (id, event, options) => sendInput(inbox, dbos, id, event, options),
 *   answer: (id, event, key) => sendInput(inbox, dbos, id, event, { idempotencyKey: key, taskAnswer: true }),
 *   wake: (id, workflowId) => enqueueDrive(dbos, id, workflowId),
 * };
 */
export interface SubagentDrives {
  /** Puts `event` in a session's inbox and enqueues its drive, as `SessionClient.send`. */
  send(
    sessionId: string,
    event: AgentEvent,
    options?: SendOptions,
  ): Promise<{ inboxSeq: number; workflowId: string }>;
  /**
   * Puts a task's answer (its call's `ToolCompleted`) in the parent session's inbox and enqueues
   * its drive, once by `idempotencyKey`: how a subagent whose drive failed answers its task.
   */
  answer(
    sessionId: string,
    event: ToolCompletedEvent,
    idempotencyKey: string,
  ): Promise<{ inboxSeq: number; workflowId: string }>;
  /** Enqueues a drive of the session under `workflowId`, once however often asked. */
  wake(sessionId: string, workflowId: string): Promise<void>;
}

/**
 * The chart config a session is driven with: the worker's for a top session; for a subagent's,
 * the worker's taken down the agents of its link (`subagentSessionConfig`).
 *
 * @example
 * sessionConfigOf(worker.config, subagentLinkOf(header.metadata), 2);
 */
export function sessionConfigOf(
  workerConfig: AgentConfig,
  link: SubagentLink | undefined,
  maxDepth: number,
): AgentConfig {
  return link === undefined ? workerConfig : subagentSessionConfig(workerConfig, link, maxDepth);
}

/**
 * Opens a session as the workers drive it: its config from its header, read once.
 *
 * @example
 * const session = await openDrivenSession(store, 'alice-1/toolu_1', config, 2);
 */
export async function openDrivenSession(
  store: SessionStore,
  sessionId: string,
  workerConfig: AgentConfig,
  maxDepth: number,
): Promise<SessionCore> {
  const stored = await store.load(sessionId);
  return (await openStoredSession(store, sessionId, stored, workerConfig, maxDepth)).session;
}

/**
 * A session as the workers drive it, opened from what one load of it read (`stored`): the chart
 * config its header's link makes, and that link and metadata, which a step needs besides.
 *
 * @example
 * const { session, link } = await openStoredSession(store, id, await store.load(id), config, 2);
 */
export async function openStoredSession(
  store: SessionStore,
  sessionId: string,
  stored: StoredSession | undefined,
  workerConfig: AgentConfig,
  maxDepth: number,
): Promise<{
  session: SessionCore;
  config: AgentConfig;
  link: SubagentLink | undefined;
  metadata: Record<string, unknown> | undefined;
}> {
  const metadata = stored?.header.metadata;
  const link = subagentLinkOf(metadata);
  const config = sessionConfigOf(workerConfig, link, maxDepth);
  const session = await SessionCore.open(
    stored === undefined ? store : loadedOnce(store, stored),
    sessionId,
    { config, mustExist: true },
  );
  return { session, config, link, metadata };
}

/** `store`, with the next load of `stored`'s session answered from it. */
export function loadedOnce(store: SessionStore, stored: StoredSession): SessionStore {
  let kept: StoredSession | undefined = stored;
  return {
    create: store.create.bind(store),
    claim: store.claim.bind(store),
    append: store.append.bind(store),
    load(sessionId) {
      const answer = kept?.header.sessionId === sessionId ? kept : undefined;
      kept = undefined;
      return answer === undefined ? store.load(sessionId) : Promise.resolve(answer);
    },
    entries: store.entries.bind(store),
    list: store.list.bind(store),
    delete: store.delete.bind(store),
    close: store.close.bind(store),
  };
}

/** The idempotency key of a task's prompt in its subagent's inbox. */
const TASK_KEY = 'task';

/**
 * What a step with `StartSubagent` actions needs: the session it drives and where it stands in
 * the tree, and how to reach other sessions.
 */
export interface SubagentStep {
  sessionId: string;
  /** The session's header metadata (a child's is the parent's, with its link). */
  metadata: Record<string, unknown> | undefined;
  link: SubagentLink | undefined;
  session: SessionCore;
  /** Streams what the step does (the task's `toolStart`). */
  announce: (action: AgentAction) => Promise<void>;
  /** The span of a task call a subagent's turns go under, when the session is traced. */
  traceParent: (callId: string) => SpanParent | undefined;
  store: SessionStore;
  inbox: SessionInbox;
  drives: SubagentDrives | undefined;
  /** The session's own chart config. */
  config: AgentConfig;
  workerConfig: AgentConfig;
  maxDepth: number;
}

type StartSubagent = Extract<AgentAction, { type: 'StartSubagent' }>;

/**
 * What came of a step's tasks: the answer of one whose subagent is done (the chart takes it
 * next), or else the tasks still at work.
 */
export interface TaskProgress {
  answered?: ToolCompletedEvent;
  running: RunningSubagent[];
}

/**
 * Starts each task that is not yet under way and looks at each subagent: records the task as
 * started (unless `started` says it is), creates the subagent's session and puts the task's
 * prompt in its inbox (both idempotent), and answers with the first subagent found at rest with
 * its answer, or with every task still at work.
 *
 * @example
 * const { answered, running } = await startSubagents(step, starts, new Set(resume.startedToolCallIds));
 */
export async function startSubagents(
  step: SubagentStep,
  starts: readonly StartSubagent[],
  started: Set<string>,
): Promise<TaskProgress> {
  const progress: TaskProgress = { running: [] };
  for (const start of starts) {
    const { call, task } = start;
    if (!started.has(call.id)) {
      await step.session.started({
        effect: 'tool',
        callId: call.id,
        name: call.name,
        mutating: false,
      });
      started.add(call.id);
      await step.announce(start);
    }
    if (step.drives === undefined) {
      const outcome = errorOutcome('not run: this driver starts no subagents');
      progress.answered ??= { type: 'ToolCompleted', callId: call.id, outcome };
      continue;
    }
    const sessionId = subagentSessionId(step.sessionId, call.id);
    const link = childLink(step.sessionId, step.link, {
      callId: call.id,
      agent: task.agent,
      mode: start.permissionMode ?? step.config.permissions?.mode,
    });
    const stored = await step.store.load(sessionId);
    if (stored === undefined) {
      await step.store
        .create(
          newSessionHeader(
            sessionId,
            Date.now(),
            withTraceParent({ ...step.metadata, subagent: link }, step.traceParent(call.id)),
          ),
        )
        .catch((error: unknown) => {
          // A step that ran before created it.
          if ((error as { code?: unknown }).code !== 'SESSION_EXISTS') throw error;
        });
    }
    // Put once, under one key, with the subagent's first drive: a step that runs again puts
    // nothing, and answers the same drive.
    const prompt: AgentEvent = {
      type: 'UserInput',
      message: { role: 'user', content: task.prompt },
    };
    const sent = await step.drives.send(sessionId, prompt, { idempotencyKey: TASK_KEY });
    if (progress.answered === undefined && stored !== undefined && stored.head > 0) {
      const done = await answerOfSubagent(step, sessionId, stored).catch(
        (error: unknown): Pick<ToolCompletedEvent, 'outcome'> => {
          if ((error as { code?: unknown }).code === 'STORE_FAILED') throw error;
          return {
            outcome: errorOutcome(`subagent '${task.agent}' failed: ${errorMessage(error)}`),
          };
        },
      );
      if (done !== undefined) {
        progress.answered = { type: 'ToolCompleted', callId: call.id, ...done };
        continue;
      }
    }
    progress.running.push({
      callId: call.id,
      agent: task.agent,
      sessionId,
      workflowId: sent.workflowId,
      wakeWorkflowId: subagentWakeWorkflowId(step.sessionId, call.id),
    });
  }
  return progress;
}

/**
 * The task's answer once its subagent is at rest with it: waiting for input with nothing queued
 * and nothing left in its inbox, its turn on the task taken. The answer is the subagent's last
 * response's text; what it used (all its own calls, and its subagents') goes with it.
 */
async function answerOfSubagent(
  step: SubagentStep,
  sessionId: string,
  stored: StoredSession,
): Promise<Pick<ToolCompletedEvent, 'outcome' | 'usage'> | undefined> {
  const { session: child } = await openStoredSession(
    step.store,
    sessionId,
    stored,
    step.workerConfig,
    step.maxDepth,
  );
  if (child.resume !== undefined || !answeredTask(child.core)) return undefined;
  if ((await step.inbox.next(sessionId)) !== undefined) return undefined;
  const { context } = child.core;
  return {
    outcome: { status: 'success', output: lastResponseText(context.messages) },
    usage: subagentUsageOf(context.usage),
  };
}

/**
 * The session is at rest with the turn its task started over: waiting for input, nothing queued,
 * and the task's prompt in its transcript.
 *
 * @example
 * answeredTask(child.core); // true once the subagent answered
 */
export function answeredTask(core: Pick<AgentCore, 'state' | 'context'>): boolean {
  return (
    core.state === 'WaitingForUserInput' &&
    core.context.queue.length === 0 &&
    core.context.messages.length > 0
  );
}

/**
 * Passes an interrupt or a shutdown of the parent on to the subagents of the task calls it
 * cancelled (each once: the parent's own idempotency key in the child's inbox); a task whose
 * subagent's session was never created has no one to tell.
 *
 * @example
 * await cancelSubagents(drives, 'alice-1', ['toolu_1'], 'Interrupt');
 */
export async function cancelSubagents(
  drives: SubagentDrives | undefined,
  sessionId: string,
  callIds: readonly string[],
  cause: 'Interrupt' | 'ShutdownRequested',
): Promise<void> {
  if (drives === undefined) return;
  for (const callId of callIds) {
    await drives
      .send(
        subagentSessionId(sessionId, callId),
        { type: cause },
        { idempotencyKey: `parent-${cause}` },
      )
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code !== 'SESSION_NOT_FOUND') throw error;
      });
  }
}

/**
 * The task calls an interrupt or a shutdown would cancel, as the chart's own transition says on a
 * copy of the session's chart (the session's is left as it is, so the subagents can be told
 * before the event is recorded).
 *
 * @example
 * tasksCancelledBy(session.core, { type: 'Interrupt' }); // ['toolu_1']
 */
export function tasksCancelledBy(
  core: AgentCore,
  event: Extract<AgentEvent, { type: 'Interrupt' | 'ShutdownRequested' }>,
): string[] {
  const copy = AgentCore.fromSnapshot(core.snapshot(), core.config);
  const cancelled = copy
    .handleEvent(event)
    .flatMap((action) => (action.type === 'Cancel' ? (action.toolCallIds ?? []) : []));
  const { toolRuns, config } = core.context;
  return toolRuns
    .filter((run) => cancelled.includes(run.call.id) && isSubagentCall(run.call, config))
    .map((run) => run.call.id);
}

/**
 * The drive of the parent that takes a subagent's answer, enqueued when the subagent's session
 * rests with it.
 *
 * @example
 * if (link && answeredTask(core)) await wakeParent(drives, link);
 */
export async function wakeParent(
  drives: SubagentDrives | undefined,
  link: SubagentLink,
): Promise<void> {
  await drives?.wake(
    link.parentSessionId,
    subagentWakeWorkflowId(link.parentSessionId, link.callId),
  );
}

/**
 * Whether a drive that failed with `error` leaves its session's task unanswered for good: not
 * when the session was taken over by another execution (that one goes on), nor when DBOS parked
 * or cancelled the workflow (it may be resumed).
 */
export function endsTheTask(error: unknown): boolean {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return (
    code !== 'SESSION_FENCED' &&
    name !== 'DBOSWorkflowConflictError' &&
    name !== 'DBOSWorkflowCancelledError'
  );
}

/**
 * Answers a subagent's task with the error its drive failed on: the parent's drive takes the
 * answer from its inbox (once, by its key) and its turn goes on. `known` is the link as the
 * failed drive read it (the header is read again only without it).
 *
 * @example
 * await reportFailedTask(drives, store, 'alice-1/toolu_1', link, error);
 */
export async function reportFailedTask(
  drives: SubagentDrives | undefined,
  store: SessionStore,
  sessionId: string,
  known: SubagentLink | undefined,
  error: unknown,
): Promise<void> {
  if (drives === undefined) return;
  // A drive recovered past the step that failed has not read the header in this execution.
  const link =
    known ?? subagentLinkOf((await store.load(sessionId).catch(() => undefined))?.header.metadata);
  if (link === undefined) return;
  const answer: ToolCompletedEvent = {
    type: 'ToolCompleted',
    callId: link.callId,
    outcome: errorOutcome(`subagent '${link.agent}' failed: ${errorMessage(error)}`),
  };
  await drives.answer(link.parentSessionId, answer, `task-failed-${link.callId}`);
}
