/**
 * The workflow that drives one session until it needs outside input. Its body is a loop of DBOS
 * steps, each of which opens the session from the store (`SessionCore`: the chart in pure mode,
 * rebuilt from its log, with the `Resume` that names what is to be done next), performs one
 * side effect — a model call, one tool call, the hook — or takes one input from the inbox, and
 * records what came of it before the chart sees it.
 *
 * Because each step starts from the log, a step that was running when its worker died simply
 * runs again elsewhere and finds there whatever the dead one recorded: a model call is sent again,
 * a tool call whose start was recorded but not its end is answered as interrupted (never run
 * twice, by the chart's own `Resume` rule), one that never started runs. Every write carries the
 * epoch this execution claimed when it began, so an execution that lost the session (its worker
 * paused past its lease) can no longer write to it; DBOS itself refuses its step outcomes.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { DeltaCoalescer } from '../actors/deltaCoalescer.js';
import { streamLlmResponse } from '../actors/llm/streamLlmResponse.js';
import type { ToolRegistry } from '../actors/tools/createToolRegistry.js';
import { runToolCall } from '../actors/tools/runToolCall.js';
import type {
  AgentAction,
  AgentConfig,
  AgentStateName,
  CompletedToolInfo,
  ToolCall,
  ToolOutcome,
} from '../machine/types.js';
import type { PostgresSessionStore } from '../persistence/postgresSessionStore.js';
import { SessionCore } from '../persistence/sessionCore.js';
import type { SessionStore } from '../persistence/sessionStore.js';
import { claimWhileAlive } from './executorLiveness.js';
import type { SessionInbox } from './sessionInbox.js';

/**
 * What one drive of a session returns.
 *
 * @example
 * if (result.awaitingApproval.length > 0) await client.send(id, { type: 'ToolApproval', callId, decision: 'allow' });
 */
export interface DriveResult {
  state: AgentStateName;
  /** Calls waiting for `ToolApproval`. */
  awaitingApproval: ToolCall[];
}

/**
 * A value of the event stream a drive writes (DBOS stream `events`). `attempt` starts each model
 * call; when a call runs again after a worker died, its text starts over from the new `attempt`.
 *
 * @example
 * for await (const value of client.readStream<DriveStreamValue>(workflowId, 'events')) show(value);
 */
export type DriveStreamValue =
  | { type: 'attempt'; executor: string }
  | { type: 'text'; content: string }
  | { type: 'toolStart'; call: ToolCall }
  | { type: 'toolEnd'; callId: string; outcome: ToolOutcome }
  | { type: 'approvalRequest'; call: ToolCall }
  | { type: 'error'; message: string }
  | { type: 'idle'; state: AgentStateName };

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
  llm: Anthropic;
  /** Runs the post-tools hook; resolves whether it acted. Default: nothing to do. */
  postToolsHook?: (completedTools: CompletedToolInfo[]) => Promise<boolean>;
  /** Told when a write of this worker was refused because another execution took the session. */
  onFenced?: (sessionId: string) => void;
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
    for (;;) {
      const outcome = await engine.runStep(() => advance(dependencies, sessionId, epoch), {
        name: 'advance',
        retriesAllowed: true,
        maxAttempts: 4,
        intervalSeconds: 0.2,
        backoffRate: 2,
        // A lost claim never comes back; only a store that could not be reached is worth retrying.
        shouldRetry: (error) => {
          const code = (error as { code?: unknown })?.code;
          if (code === 'SESSION_FENCED') dependencies.onFenced?.(sessionId);
          return code === 'STORE_FAILED';
        },
      });
      if (outcome.next === 'sleep') await engine.sleep(outcome.ms);
      if (outcome.next === 'rest') {
        await engine.writeStream(DRIVE_STREAM, { type: 'idle', state: outcome.result.state });
        await engine.closeStream(DRIVE_STREAM);
        return outcome.result;
      }
    }
  };
}

/** One step: open the session, then do the one thing it needs next. */
async function advance(
  dependencies: DriverDependencies,
  sessionId: string,
  epoch: number,
): Promise<StepOutcome> {
  const { engine, inbox } = dependencies;
  const fenced = fencedStore(dependencies.store, inbox, epoch);
  const session = await SessionCore.open(fenced, sessionId, {
    config: dependencies.config,
    mustExist: true,
  });
  const stream = (value: DriveStreamValue) => engine.writeStream(DRIVE_STREAM, value);
  const actions = session.resume ? await session.handleEvent(session.resume) : [];
  let effect = await announce(actions, stream);
  // Inputs wait for the drive in front of them, which holds the session's partition until it
  // rests; an Interrupt is the exception, taken before more work starts.
  const input = await inbox.next(sessionId);
  if (effect === undefined || input?.event.type === 'Interrupt') {
    if (input === undefined) {
      return {
        next: 'rest',
        result: {
          state: session.core.state,
          awaitingApproval: session.core.context.toolRuns
            .filter((run) => run.status === 'awaitingApproval')
            .map((run) => run.call),
        },
      };
    }
    fenced.taking = input.seq;
    let taken = await session.handleEvent(input.event);
    // An input the chart refused records nothing; it is taken all the same.
    if (fenced.taking !== undefined) await fenced.takeAlone(sessionId, input.seq);
    // Between steps nothing of this drive is running: the calls an Interrupt would wait for
    // cannot report any more, so their grace is over at once.
    if (taken.some((action) => action.type === 'Cancel' && action.graceMs !== undefined)) {
      taken = [...taken, ...(await session.handleEvent({ type: 'ToolGraceExpired' }))];
    }
    effect = await announce(taken, stream);
    if (effect === undefined) return { next: 'more' };
  }

  switch (effect.type) {
    case 'SendLlmRequest': {
      await session.started({ effect: 'llm' });
      await stream({ type: 'attempt', executor: engine.executorID });
      // Text is written in batches, one per display frame at most (each write is a row in
      // PostgreSQL), and the writes are chained, so it reaches readers in the order it came.
      // The first one refused (this execution lost the workflow) stops the rest and fails the
      // step once the call is over; until then the chain never rejects, so nothing is left
      // unhandled.
      let writes = Promise.resolve();
      let refused: { error: unknown } | undefined;
      const text = new DeltaCoalescer((delta) => {
        if (delta.type !== 'LlmTextDelta') return; // only text is pushed
        writes = writes.then(async () => {
          if (refused !== undefined) return;
          await stream({ type: 'text', content: delta.content }).catch((error: unknown) => {
            refused = { error };
          });
        });
      });
      const result = await streamLlmResponse({
        client: dependencies.llm,
        request: effect.request,
        onEvent: (delta) => {
          if (delta.type === 'LlmTextDelta') text.push(delta);
        },
      });
      text.flush();
      await writes;
      if (refused !== undefined) throw refused.error;
      const completed = await session.handleEvent(
        result.ok
          ? { type: 'LlmCompleted', response: result.response }
          : { type: 'LlmError', error: result.error },
      );
      await streamErrors(completed, stream);
      return { next: 'more' };
    }
    case 'ExecuteTools': {
      // One call a step: the next step's Resume names the calls still to run.
      const call = effect.calls[0]!;
      const mutating = dependencies.tools.isMutating(call.name);
      await session.started({ effect: 'tool', callId: call.id, name: call.name, mutating });
      await stream({ type: 'toolStart', call });
      // The start is stored under this execution's epoch; asking again just before the call
      // keeps a worker that was paused since then from running it after another took over.
      if (mutating) await fenced.stillMine(sessionId);
      const outcome = await runToolCall(dependencies.tools, call, {
        workspace:
          typeof dependencies.workspace === 'string'
            ? dependencies.workspace
            : dependencies.workspace(sessionId),
      });
      // Recorded first: readers are told of an outcome that is in the log.
      const completed = await session.handleEvent({
        type: 'ToolCompleted',
        callId: call.id,
        outcome,
      });
      await stream({ type: 'toolEnd', callId: call.id, outcome });
      await streamErrors(completed, stream);
      return { next: 'more' };
    }
    case 'RunPostToolsHook': {
      await session.started({ effect: 'hook' });
      const actionTaken = (await dependencies.postToolsHook?.(effect.completedTools)) ?? false;
      await streamErrors(
        await session.handleEvent({ type: 'PostToolsHookCompleted', actionTaken }),
        stream,
      );
      return { next: 'more' };
    }
    case 'ScheduleRetry':
      if (effect.delayMs > FIRE_NOW_MS) return { next: 'sleep', ms: effect.delayMs };
      await streamErrors(await session.handleEvent({ type: 'RetryTimeoutFired' }), stream);
      return { next: 'more' };
  }
}

type Effect = Extract<
  AgentAction,
  { type: 'SendLlmRequest' | 'ExecuteTools' | 'RunPostToolsHook' | 'ScheduleRetry' }
>;

/** Streams what the client is told, and returns the first side effect asked for, if any. */
async function announce(
  actions: AgentAction[],
  stream: (value: DriveStreamValue) => Promise<void>,
): Promise<Effect | undefined> {
  let effect: Effect | undefined;
  for (const action of actions) {
    switch (action.type) {
      case 'RequestApproval':
        await stream({ type: 'approvalRequest', call: action.call });
        break;
      case 'DisplayError':
        await stream({ type: 'error', message: action.message });
        break;
      case 'SendLlmRequest':
      case 'ExecuteTools':
      case 'RunPostToolsHook':
      case 'ScheduleRetry':
        effect ??= action;
        break;
      default:
        // WaitForInput, DisplayMessage (its text was streamed), Cancel (one effect runs at a
        // time, inside the step), Shutdown: nothing to do outside the chart.
        break;
    }
  }
  return effect;
}

/**
 * The errors the chart reported for an outcome a step recorded (a model call given up on, a reply
 * cut off at max_tokens). Everything else the step's event led to is announced by the next step,
 * whose `Resume` names it again; an error is said once, here.
 */
async function streamErrors(
  actions: AgentAction[],
  stream: (value: DriveStreamValue) => Promise<void>,
): Promise<void> {
  await announce(
    actions.filter((action) => action.type === 'DisplayError'),
    stream,
  );
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
