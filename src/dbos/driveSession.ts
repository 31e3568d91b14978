/**
 * The workflow that drives one session until it needs outside input. Its body is a loop of DBOS
 * steps, each of which opens the session from the store (`SessionCore`: the chart in pure mode,
 * rebuilt from its log, with the `Resume` that names what is to be done next), performs one
 * side effect — a model call (a compaction's summary call too), one tool call, a hook — or takes
 * one input from the inbox, and records what came of it before the chart sees it.
 *
 * Because each step starts from the log, a step that was running when its worker died simply
 * runs again elsewhere and finds there whatever the dead one recorded: a model call is sent again,
 * a tool call whose start was recorded but not its end is answered as interrupted (never run
 * twice, by the chart's own `Resume` rule), one that never started runs. Every write carries the
 * epoch this execution claimed when it began, so an execution that lost the session (its worker
 * paused past its lease) can no longer write to it; DBOS itself refuses its step outcomes.
 *
 * A task call's subagent runs in a session of its own, driven by drives of its own (see
 * `subagentDrives.ts`): the step that meets it starts that session on the task, and the drive
 * rests while it works; the subagent's answer enqueues the drive that takes it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  DeltaCoalescer,
  type LlmTransport,
  runToolCall,
  runHook,
  streamLlmResponse,
  type AgentHooks,
  type ToolRegistry,
} from '../actors/index.js';
import {
  type AgentNotification,
  type Announce,
  llmEndOf,
  notificationsOfAction,
  toolEndsBetween,
} from '../agent/index.js';
import {
  type AgentAction,
  type AgentConfig,
  type AgentEvent,
  type AgentStateName,
  type CompletedToolInfo,
  DEFAULT_SUBAGENT_DEPTH,
  errorMessage,
  openQuestionsOf,
  type QuestionsAsked,
  type ToolCall,
  type ToolCompletedEvent,
  hookInputOf,
  type LlmStreamDelta,
} from '../machine/index.js';
import type { SessionCore } from '../persistence/index.js';
import {
  type PostgresSessionStore,
  type SessionStore,
  type SubagentLink,
  subagentLinkOf,
} from '../persistence/index.js';
import {
  type AgentTracer,
  type SessionTracers,
  spanParentOf,
  TRACE_PARENT_KEY,
} from '../telemetry/index.js';
import { claimWhileAlive } from './executorLiveness.js';
import type { SessionInbox } from './sessionInbox.js';
import {
  answeredTask,
  cancelSubagents,
  openStoredSession,
  type RunningSubagent,
  startSubagents,
  type SubagentDrives,
  endsTheTask,
  reportFailedTask,
  type SubagentStep,
  tasksCancelledBy,
  wakeParent,
} from './subagentDrives.js';

/**
 * What one drive of a session returns: the state it rests in, and what it waits for from a
 * person, if anything. Both lists come from the session's log, so the drive that rests after a
 * failover names every call and question still open, whichever worker first asked them.
 *
 * @example
 * const result = await client.result(workflowId);
 * for (const call of result.awaitingApproval) {
 *   await client.send(id, { type: 'ToolApproval', callId: call.id, decision: 'allow' });
 * }
 * for (const { callId, questions } of result.awaitingAnswer) {
 *   await client.send(id, { type: 'UserAnswer', callId, answers: questions.map(() => 'yes') });
 * }
 */
export interface DriveResult {
  state: AgentStateName;
  /** Calls waiting for `ToolApproval`. */
  awaitingApproval: ToolCall[];
  /** `ask_user` calls whose questions wait for a `UserAnswer` (chart config `askUser: true`). */
  awaitingAnswer: QuestionsAsked[];
  /**
   * Task calls whose subagents are at work, each in a session of its own (present when there
   * are any): a subagent's approvals are sent to its `sessionId`, its drive's stream and result
   * are `workflowId`'s, and `wakeWorkflowId` is the drive of this session that goes on once
   * the subagent has answered.
   */
  subagents?: RunningSubagent[];
}

/**
 * A value of the event stream a drive writes (DBOS stream `events`): the agent's own
 * notifications (`llmStart`, `text`, `llmEnd`, `usage`, `toolStart`, `toolEnd`, `approvalRequest`,
 * `question`, `retry`, `error`, `compacting`, `compacted`, `compactionSkipped`, …), made by the
 * same map as an agent's handle makes them, and `idle` when the drive rests (with the calls
 * waiting for approval, the questions waiting for answers and the subagents at work: the
 * {@link DriveResult}).
 * `llmStart` also names the worker that makes the call. A client rebuilds the stored text of each model call from them: the text after an
 * `llmStart` is in the transcript when an `llmEnd` for the same `transcriptIndex` says
 * `completed` or `interrupted`; text whose call starts again (a new `llmStart`: a retry, or
 * another worker taking over) is not. An `llmEnd` may be said twice (after a worker died):
 * take each call's end once.
 *
 * @example
 * for await (const value of client.readStream<DriveStreamValue>(workflowId, 'events')) show(value);
 */
export type DriveStreamValue =
  | Exclude<AgentNotification, { type: 'llmStart' }>
  | (Extract<AgentNotification, { type: 'llmStart' }> & { executor: string })
  | ({ type: 'idle' } & DriveResult);

/** The DBOS calls the driver makes (the `DBOS` class fits). */
export interface DriverEngine {
  runStep<T>(
    work: () => Promise<T>,
    config: {
      name: string;
      retriesAllowed?: boolean;
      maxAttempts?: number;
      intervalSeconds?: number;
      backoffRate?: number;
      shouldRetry?: (error: unknown) => boolean;
    },
  ): Promise<T>;
  sleep(ms: number): Promise<void>;
  writeStream(key: string, value: unknown): Promise<void>;
  closeStream(key: string): Promise<void>;
  readonly executorID: string;
}

/** What a drive needs, fixed for the worker's life. */
export interface DriverDependencies {
  engine: DriverEngine;
  store: PostgresSessionStore;
  inbox: SessionInbox;
  config: AgentConfig;
  tools: ToolRegistry;
  /** The directory tools work in, or the one of each session. */
  workspace: string | ((sessionId: string) => string);
  llm: Anthropic | LlmTransport;
  /** Runs the post-tools hook; resolves whether it acted. Default: nothing to do. */
  postToolsHook?: (completedTools: CompletedToolInfo[]) => Promise<boolean>;
  /** The hooks the chart's `hooks` switches say run, and how long each may take. */
  hooks?: AgentHooks;
  hookTimeoutMs?: number;
  /** Told when a write of this worker was refused because another execution took the session. */
  onFenced?: (sessionId: string) => void;
  /** Traces each session this worker drives (the worker's `telemetry` option). */
  tracers?: SessionTracers;
  /**
   * How a drive starts its subagents' drives and wakes its parent's (the worker's client).
   * Without it, a task call is answered at once with an error the model reads.
   */
  subagents?: SubagentDrives;
  /** How many levels of subagents may run below a top session. Default 2. */
  maxSubagentDepth?: number;
}

/** The key of the stream every drive writes. */
export const DRIVE_STREAM = 'events';

/** A backoff this short is not worth a durable sleep. */
const FIRE_NOW_MS = 20;

/** What a step tells the workflow loop: go on, sleep first, or stop. */
type StepOutcome =
  { next: 'more' } | { next: 'sleep'; ms: number } | { next: 'rest'; result: DriveResult };

/**
 * Makes the workflow function: `drive(sessionId)` runs the session until it waits for input.
 *
 * @example
 * const drive = DBOS.registerWorkflow(createSessionDriver(dependencies), { name: 'agent-statechart.drive' });
 */
export function createSessionDriver(
  dependencies: DriverDependencies,
): (sessionId: string) => Promise<DriveResult> {
  const { engine, store } = dependencies;
  return async function drive(sessionId: string): Promise<DriveResult> {
    // Not a step: every execution, first or recovered, takes a newer claim than the one before,
    // and only while its worker is alive.
    const epoch = await claimWhileAlive(store, engine.executorID, sessionId);
    if (epoch === undefined) {
      // This worker was declared dead (paused or cut off past its lease) and has not noticed yet.
      // The drive stays unfinished, neither done nor failed: the reaper hands it to a live
      // worker, and this process stops at its next heartbeat.
      dependencies.onFenced?.(sessionId);
      return new Promise<never>(() => undefined);
    }
    // Steps this execution replays from DBOS's record do not run; the first that runs may be one
    // a dead worker began, whose outcome it recorded but never streamed.
    const execution: Execution = { restated: false };
    try {
      return await driveOn(dependencies, sessionId, epoch, execution);
    } catch (error) {
      // A subagent's drive that fails answers its task with the error, or its parent would wait
      // for it for ever.
      if (endsTheTask(error)) {
        await engine.runStep(
          () => reportFailedTask(dependencies.subagents, store, sessionId, execution.link, error),
          { name: 'reportFailedTask', ...STEP_RETRIES },
        );
      }
      throw error;
    }
  };
}

/** How one step is retried when the store could not be reached. */
const STEP_RETRIES = {
  retriesAllowed: true,
  maxAttempts: 4,
  intervalSeconds: 0.2,
  backoffRate: 2,
} as const;

/** What one execution of a drive knows across its steps. */
interface Execution {
  /** Whether a step of it has said again what a dead worker may not have lived to say. */
  restated: boolean;
  /** The session's link to its parent, once a step read it. */
  link?: SubagentLink | undefined;
}

/** The drive's loop of steps, until the session rests. */
async function driveOn(
  dependencies: DriverDependencies,
  sessionId: string,
  epoch: number,
  execution: Execution,
): Promise<DriveResult> {
  const { engine } = dependencies;
  for (;;) {
    const outcome = await engine.runStep(() => advance(dependencies, sessionId, epoch, execution), {
      name: 'advance',
      ...STEP_RETRIES,
      // A lost claim never comes back; only a store that could not be reached is worth retrying.
      shouldRetry: (error) => {
        const code = (error as { code?: unknown })?.code;
        if (code === 'SESSION_FENCED') dependencies.onFenced?.(sessionId);
        return code === 'STORE_FAILED';
      },
    });
    if (outcome.next === 'sleep') await engine.sleep(outcome.ms);
    if (outcome.next === 'rest') {
      dependencies.tracers?.release(sessionId);
      await engine.writeStream(DRIVE_STREAM, { type: 'idle', ...outcome.result });
      await engine.closeStream(DRIVE_STREAM);
      return outcome.result;
    }
  }
}

/** What a step does: one of the chart's effects, or takes a subagent's answer to its task. */
type Work =
  | Exclude<Effect, { type: 'StartSubagent' }>
  | { type: 'SubagentAnswered'; event: ToolCompletedEvent };

/** One step: open the session, then do the one thing it needs next. */
async function advance(
  dependencies: DriverDependencies,
  sessionId: string,
  epoch: number,
  execution: Execution,
): Promise<StepOutcome> {
  const { engine, inbox } = dependencies;
  const fenced = fencedStore(dependencies.store, inbox, epoch);
  // A subagent's session is opened with its own config, which its header says how to make: read
  // once, for the header and the opening both.
  const maxDepth = dependencies.maxSubagentDepth ?? DEFAULT_SUBAGENT_DEPTH;
  const workerConfig = dependencies.config;
  const stored = await fenced.load(sessionId);
  // Known before the opening, which fails on a log that cannot be replayed.
  execution.link = subagentLinkOf(stored?.header.metadata);
  const { session, config, link, metadata } = await openStoredSession(
    fenced,
    sessionId,
    stored,
    workerConfig,
    maxDepth,
  );
  const stream = (value: DriveStreamValue) => engine.writeStream(DRIVE_STREAM, value);
  // A subagent's turns continue its parent's trace, under the task call's span its header keeps.
  const parent = spanParentOf(metadata?.[TRACE_PARENT_KEY]);
  const tracer = dependencies.tracers?.for(
    sessionId,
    link === undefined
      ? undefined
      : { agentName: link.agent, ...(parent === undefined ? {} : { parent }) },
  );
  const chart = new StreamedChart(session, stream, engine.executorID, tracer);
  if (!execution.restated) {
    // What a dead worker may have recorded and not lived to say is said again: how the latest
    // model call ended (a client takes each call's end once). The calls waiting for approval
    // and the questions waiting for answers are in the `idle` that ends every drive.
    await chart.restate();
    execution.restated = true;
  }
  const tasks: SubagentStep = {
    sessionId,
    metadata,
    link,
    session,
    announce: (action) => chart.announce(action),
    traceParent: (callId) => tracer?.toolSpanParent(callId),
    store: dependencies.store,
    inbox,
    drives: dependencies.subagents,
    config,
    workerConfig,
    maxDepth,
  };
  // The tasks this session's log says were started: their starts are not recorded again.
  const started = new Set(session.resume?.startedToolCallIds ?? []);
  /** The step's work among `effects`: tasks are started first, and wait for their subagents. */
  const workOf = async (
    effects: readonly Effect[],
  ): Promise<{ work?: Work; running: RunningSubagent[] }> => {
    const starts = effects.filter(
      (effect): effect is Extract<Effect, { type: 'StartSubagent' }> =>
        effect.type === 'StartSubagent',
    );
    const progress =
      starts.length === 0 ? { running: [] } : await startSubagents(tasks, starts, started);
    const other = effects.find(
      (effect): effect is Exclude<Effect, { type: 'StartSubagent' }> =>
        effect.type !== 'StartSubagent',
    );
    if (other !== undefined) return { work: other, running: progress.running };
    if (progress.answered === undefined) return { running: progress.running };
    return {
      work: { type: 'SubagentAnswered', event: progress.answered },
      running: progress.running,
    };
  };
  const resumed = session.resume ? await chart.take(session.resume) : [];
  // Inputs wait for the drive in front of them, which holds the session's partition until it
  // rests; an Interrupt is the exception, taken before more work starts (or more tasks).
  const input = await inbox.next(sessionId);
  const resting = input?.event.type === 'Interrupt' ? { running: [] } : await workOf(resumed);
  let { work } = resting;
  if (work === undefined) {
    if (input === undefined) {
      // A subagent at rest with its answer wakes its parent, whose next drive takes it.
      if (link !== undefined && answeredTask(session.core)) {
        await wakeParent(dependencies.subagents, link);
      }
      return { next: 'rest', result: restingResult(session, resting.running) };
    }
    fenced.taking = input.seq;
    const { event } = input;
    if (event.type === 'Interrupt' || event.type === 'ShutdownRequested') {
      // Passed on before it is recorded: a worker that dies in between leaves the input in the
      // inbox, and the one that takes it over passes it on again (once per subagent, by its key).
      const cancelled = tasksCancelledBy(session.core, event);
      await cancelSubagents(dependencies.subagents, sessionId, cancelled, event.type);
    }
    let effects = await chart.take(event);
    // An input the chart refused records nothing; it is taken all the same.
    if (fenced.taking !== undefined) await fenced.takeAlone(sessionId, input.seq);
    // Between steps nothing of this drive is running: the calls an Interrupt would wait for
    // cannot report any more, so their grace is over at once.
    if (chart.awaitsCancelledCalls) effects = await chart.take({ type: 'ToolGraceExpired' });
    ({ work } = await workOf(effects));
    if (work === undefined) return { next: 'more' };
  }
  const effect = work;

  switch (effect.type) {
    case 'SendLlmRequest':
    case 'SendCompactionRequest': {
      await session.started({ effect: 'llm' });
      await chart.announce(effect);
      // A summary's text is not streamed: only the whole of it counts, and `compacted` says it.
      const text = effect.type === 'SendLlmRequest' ? streamedText(chart) : undefined;
      const result = await streamLlmResponse({
        client: dependencies.llm,
        request: effect.request,
        ...(text === undefined ? {} : { onEvent: text.push }),
      });
      await text?.finished();
      await chart.take(
        result.ok
          ? { type: 'LlmCompleted', response: result.response }
          : { type: 'LlmError', error: result.error },
      );
      return { next: 'more' };
    }
    case 'ExecuteTools': {
      // One call a step: the next step's Resume names the calls still to run.
      const call = effect.calls[0]!;
      const mutating = dependencies.tools.isMutating(call.name);
      await session.started({ effect: 'tool', callId: call.id, name: call.name, mutating });
      await chart.announce({ type: 'ExecuteTools', calls: [call] });
      // The start is stored under this execution's epoch; asking again just before the call
      // keeps a worker that was paused since then from running it after another took over.
      if (mutating) await fenced.stillMine(sessionId);
      const outcome = await runToolCall(dependencies.tools, call, {
        workspace:
          typeof dependencies.workspace === 'string'
            ? dependencies.workspace
            : // A subagent works in its top session's workspace.
              dependencies.workspace(link?.rootSessionId ?? sessionId),
      });
      // Recorded first: readers are told of an outcome that is in the log.
      await chart.take({ type: 'ToolCompleted', callId: call.id, outcome });
      return { next: 'more' };
    }
    case 'RunPostToolsHook': {
      await session.started({ effect: 'hook' });
      // Hooks fail open: a hook that throws is reported, and the turn goes on.
      const hook = await Promise.resolve()
        .then(() => dependencies.postToolsHook?.(effect.completedTools) ?? false)
        .then(
          (actionTaken) => ({ actionTaken }),
          (error: unknown) => ({ actionTaken: false, error: errorMessage(error) }),
        );
      await chart.take({ type: 'PostToolsHookCompleted', ...hook });
      return { next: 'more' };
    }
    case 'RunPreToolUseHook':
    case 'RunPostToolUseHook':
    case 'RunUserPromptSubmitHook':
    case 'RunPreCompactHook':
    case 'RunStopHook': {
      // A hook's answer is recorded like any event; a step that dies before it asks the hook
      // again, and a recorded answer is never asked for twice.
      const options = {
        sessionId,
        ...(dependencies.hookTimeoutMs === undefined
          ? {}
          : { timeoutMs: dependencies.hookTimeoutMs }),
      };
      await chart.take(await runHook(dependencies.hooks ?? {}, hookInputOf(effect), options));
      return { next: 'more' };
    }
    case 'SubagentAnswered':
      await chart.take(effect.event);
      return { next: 'more' };
    case 'ScheduleRetry':
      if (effect.delayMs > FIRE_NOW_MS) {
        // The backoff's start is recorded: the step after the sleep waits only what is left.
        await session.started({ effect: 'retry', delayMs: effect.delayMs });
        await chart.announce(effect);
        return { next: 'sleep', ms: effect.delayMs };
      }
      await chart.take({ type: 'RetryTimeoutFired' });
      return { next: 'more' };
  }
}

/** What a drive that rests now returns: what the session waits for. */
function restingResult(session: SessionCore, running: RunningSubagent[]): DriveResult {
  const { toolRuns } = session.core.context;
  return {
    state: session.core.state,
    awaitingApproval: toolRuns
      .filter((run) => run.status === 'awaitingApproval')
      .map((run) => run.call),
    awaitingAnswer: openQuestionsOf(toolRuns),
    ...(running.length === 0 ? {} : { subagents: running }),
  };
}

/**
 * A model call's streamed text, written to the session's readers in batches, one per display frame
 * at most (each write is a row in PostgreSQL), and chained, so it reaches them in the order it
 * came. The first write refused (this execution lost the workflow) stops the rest, and
 * `finished` rejects with it once the call is over; until then the chain never rejects, so
 * nothing is left unhandled.
 */
function streamedText(chart: StreamedChart): {
  push: (delta: LlmStreamDelta) => void;
  finished: () => Promise<void>;
} {
  let writes = Promise.resolve();
  let refused: { error: unknown } | undefined;
  const text = new DeltaCoalescer((delta) => {
    if (delta.type !== 'LlmTextDelta') return; // only text is pushed
    writes = writes.then(async () => {
      if (refused !== undefined) return;
      await chart
        .announce({ type: 'DisplayMessage', text: delta.content })
        .catch((error: unknown) => {
          refused = { error };
        });
    });
  });
  return {
    push: (delta) => {
      if (delta.type === 'LlmTextDelta') text.push(delta);
    },
    finished: async () => {
      text.flush();
      await writes;
      if (refused !== undefined) throw refused.error;
    },
  };
}

/** The actions a `Resume` emits again for what still waits for a person. */
const ASKED_AGAIN_ON_RESUME: ReadonlySet<AgentAction['type']> = new Set([
  'RequestApproval',
  'AskUser',
]);

/** The actions a step carries out itself: one of them is the step's work. */
const EFFECT_TYPES = [
  'SendLlmRequest',
  'ExecuteTools',
  'RunPostToolsHook',
  'RunPreToolUseHook',
  'RunPostToolUseHook',
  'RunUserPromptSubmitHook',
  'RunPreCompactHook',
  'RunStopHook',
  'SendCompactionRequest',
  'StartSubagent',
  'ScheduleRetry',
] as const satisfies ReadonlyArray<AgentAction['type']>;

type Effect = Extract<AgentAction, { type: (typeof EFFECT_TYPES)[number] }>;

/**
 * The session's chart as a step feeds it: each event recorded, and what came of it streamed to
 * clients in the agent's notification vocabulary. What happened (a call's end, a tool's outcome,
 * an error, a call that now waits for approval, questions put to the user) is said when the chart
 * takes the event that made it; what a step does (a model call's attempt, a tool call, a backoff)
 * is said by the step as it does it. A `Resume` restates what the chart was doing, so only what it
 * changes is said.
 * The first step a drive's execution runs says again what a dead worker may have recorded and
 * not lived to say.
 */
class StreamedChart {
  readonly #session: SessionCore;
  readonly #stream: (value: DriveStreamValue) => Promise<void>;
  readonly #executor: string;
  readonly #tracer: AgentTracer | undefined;
  #cancelledCallsPending = false;

  constructor(
    session: SessionCore,
    stream: (value: DriveStreamValue) => Promise<void>,
    executor: string,
    tracer: AgentTracer | undefined,
  ) {
    this.#session = session;
    this.#stream = stream;
    this.#executor = executor;
    this.#tracer = tracer;
  }

  /** Whether the last event left tool calls the chart waits for (an Interrupt's grace period). */
  get awaitsCancelledCalls(): boolean {
    return this.#cancelledCallsPending;
  }

  /** Feeds and records `event`, streams what came of it, and returns the effects asked for. */
  async take(event: AgentEvent): Promise<Effect[]> {
    const before = this.#session.core.context.toolRuns;
    const actions = await this.#session.handleEvent(event);
    const notifications: DriveStreamValue[] = [];
    toolEndsBetween(before, this.#session.core.context.toolRuns, this.#push(notifications));
    const restating = event.type === 'Resume';
    const effects: Effect[] = [];
    this.#cancelledCallsPending = false;
    this.#tracer?.event(event);
    for (const action of actions) {
      // Every step opens the session with a Resume, which asks again for every approval and
      // answer still awaited: they were said when first asked, and the drive's `idle` says
      // them all again.
      const askedAgain = restating && ASKED_AGAIN_ON_RESUME.has(action.type);
      if (!askedAgain) this.#tracer?.action(action);
      if (action.type === 'Cancel' && action.graceMs !== undefined) {
        this.#cancelledCallsPending = true;
      }
      if (isEffect(action)) {
        effects.push(action);
        continue;
      }
      if (askedAgain) continue;
      notificationsOfAction(action, this.#push(notifications));
    }
    for (const notification of notifications) await this.#stream(notification);
    return effects;
  }

  /** Streams the notifications of something the step does itself. */
  async announce(action: AgentAction): Promise<void> {
    const notifications: DriveStreamValue[] = [];
    notificationsOfAction(action, this.#push(notifications));
    for (const notification of notifications) await this.#stream(notification);
  }

  /** Says again how the latest model call ended. */
  async restate(): Promise<void> {
    const { lastCall: lastCallEnding } = this.#session.core.context.window;
    if (lastCallEnding !== null) {
      await this.#stream({ type: 'llmEnd', ...llmEndOf(lastCallEnding) });
    }
  }

  /** Collects notifications as stream values; a model call's attempt names this worker. */
  #push(into: DriveStreamValue[]): Announce {
    return (name, payload) => {
      const value = { type: name, ...payload } as DriveStreamValue;
      into.push(value.type === 'llmStart' ? { ...value, executor: this.#executor } : value);
    };
  }
}

function isEffect(action: AgentAction): action is Effect {
  return (EFFECT_TYPES as ReadonlyArray<AgentAction['type']>).includes(action.type);
}

/**
 * The store as one execution writes to it: every write carries the execution's epoch, and the
 * write that records an input taken from the inbox also marks it taken, in one transaction.
 */
function fencedStore(
  store: PostgresSessionStore,
  inbox: SessionInbox,
  epoch: number,
): SessionStore & {
  taking: number | undefined;
  takeAlone(sessionId: string, seq: number): Promise<void>;
  stillMine(sessionId: string): Promise<void>;
} {
  // An empty write is checked against the epoch like any other: it fails once the session is
  // another execution's.
  const emptyWrite = (
    sessionId: string,
    alongside: Parameters<PostgresSessionStore['appendWith']>[2],
  ) => store.appendWith(sessionId, { after: head, epoch, entries: [] }, alongside);
  // The head as this execution last loaded or wrote it (one step opens one session).
  let head = 0;
  const fenced = {
    taking: undefined as number | undefined,
    create: store.create.bind(store),
    claim: store.claim.bind(store),
    async load(sessionId: string) {
      const stored = await store.load(sessionId);
      head = stored?.head ?? 0;
      return stored;
    },
    entries: store.entries.bind(store),
    list: store.list.bind(store),
    delete: store.delete.bind(store),
    close: store.close.bind(store),
    append(sessionId: string, write: Parameters<SessionStore['append']>[1]) {
      const seq = fenced.taking;
      fenced.taking = undefined;
      const withEpoch = { ...write, epoch };
      head = write.after + write.entries.length;
      return seq === undefined
        ? store.append(sessionId, withEpoch)
        : store.appendWith(sessionId, withEpoch, (client) => inbox.take(client, sessionId, seq));
    },
    async takeAlone(sessionId: string, seq: number) {
      fenced.taking = undefined;
      await emptyWrite(sessionId, (client) => inbox.take(client, sessionId, seq));
    },
    stillMine(sessionId: string) {
      return emptyWrite(sessionId, () => Promise.resolve());
    },
  };
  return fenced;
}
