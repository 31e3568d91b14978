/**
 * The handle of an agent running in actor mode: a few methods that turn user intent into chart
 * events, typed notifications, and a graceful shutdown. The XState actor underneath is the truth:
 * `state`, `context` and `snapshot()` read its snapshot and nothing else.
 */
import type { Actor, SnapshotFrom } from 'xstate';
import type * as z from 'zod';
import {
  type AgentContext,
  type AgentDiagnostic,
  type AgentDiagnosticCode,
  type UsageTotals,
  type AgentEvent,
  type AgentMachine,
  type AgentSnapshot,
  AgentStatechartError,
  type AgentStateName,
  type AgentStateValue,
  admit,
  atRest,
  checkEvent,
  copyPlainJson,
  describeStateValue,
  errorMessage,
  lastResponseText,
  type Message,
  openQuestionsOf,
  type OutputSpec,
  type PermissionMode,
  type QuestionsAsked,
  topStateOf,
  toStoredContext,
  type UserAnswers,
} from '../machine/index.js';
import {
  type InFlightWork,
  type OutputOption,
  outputSpecOf,
  zodSchemaOf,
} from '../actors/index.js';
import type {
  AgentListener,
  AgentNotificationName,
  NotificationHub,
} from './agentNotifications.js';
import type { SandboxStatus } from '../actors/index.js';
import type { InspectorServer } from '../inspect/index.js';
import type { McpServerStatus, McpServers } from '../mcp/index.js';

/**
 * Options of {@link Agent.run}.
 *
 * @example
 * const options: RunOptions = { timeoutMs: 120_000 };
 */
export interface RunOptions {
  /** How long to wait for the agent to be idle, and then for the turn to end. */
  timeoutMs?: number;
}

/**
 * How an {@link Agent.compact} ended: `compacted`, the transcript now being the `summary` (its
 * first message) and the `kept` messages after it, in place of `summarised` older ones; or
 * `skipped`, the transcript as it was, `reason` saying why (nothing to summarise yet, the
 * `preCompact` hook blocked it, the summary call failed, an interrupt or a shutdown came first).
 *
 * @example
 * const outcome: CompactionOutcome = { status: 'compacted', summary: 'We are adding OAuth…', summarised: 212, kept: 6 };
 */
export type CompactionOutcome =
  | { status: 'compacted'; summary: string; summarised: number; kept: number }
  | { status: 'skipped'; reason: string };

/** What the user says, as a message: text is a user message of that text. */
function userMessage(message: string | Message): Message {
  return typeof message === 'string' ? { role: 'user', content: message } : message;
}

/**
 * Options of {@link Agent.shutdown}.
 *
 * @example
 * await agent.shutdown({ drain: true, timeoutMs: 30_000 });
 */
export interface ShutdownOptions {
  /** Let the current turn (and queued input) finish first. Default false: cancel at once. */
  drain?: boolean;
  /** How long to wait for the turn and for cancelled work to wind down. Default 10 s. */
  timeoutMs?: number;
  /**
   * For an agent with a session store: end the session itself (the chart's `ShutdownRequested` is
   * recorded, and the session is over). Default false: only this process stops driving it, and an
   * agent created again on the session goes on where it stopped.
   */
  endSession?: boolean;
}

/** What the handle keeps from the start, whether its chart is running yet or not. */
export interface AgentShell {
  hub: NotificationHub;
  inFlight: InFlightWork;
  inspector: InspectorServer | undefined;
  /**
   * Called on shutdown: closes what was started for this agent alone (an inspector page, MCP
   * servers).
   */
  release: () => Promise<void>;
  /** The MCP servers the agent takes tools from, once connected. */
  mcpServers: () => McpServers | undefined;
  /** The stored session this agent runs, when it runs one. */
  sessionId: string | undefined;
  sandbox: SandboxStatus | undefined;
  /** The subagents running now, by task call id (their approvals are answered through this agent). */
  children: ReadonlyMap<string, Agent>;
}

/** The running chart, handed over once it exists (at once, or once a stored session is open). */
export interface AgentParts {
  actor: Actor<AgentMachine>;
  /** Switches on the notifications read off microsteps (`state`, `toolEnd`). */
  followMicrosteps: () => void;
  /**
   * Sent right after the chart starts, in order: a restored session's `Resume`, then the
   * permission mode the caller asked for when it differs from the stored one.
   */
  openingEvents: AgentEvent[];
  /** Resolves once everything recorded so far is stored (a durable session). */
  recorded?: () => Promise<void>;
  /** Resolves if the session stops taking writes: the agent then stops too. */
  unrecordable?: Promise<unknown>;
}

/**
 * An agent running in actor mode. Everything it does is observable through `on`; nothing it does
 * can throw into the host or leave an unhandled rejection behind.
 *
 * An agent with a session store opens its session first: `ready` resolves once it has (what is
 * sent meanwhile is delivered then, in order), and `actor`, `state`, `context` and `snapshot()`
 * are available from then on.
 *
 * @example
 * const agent = createAgent({ workspace: process.cwd() });
 * agent.on('text', ({ text }) => process.stdout.write(text));
 * agent.send('List the files here');
 * await agent.waitUntilIdle();
 * await agent.shutdown();
 */
export class Agent {
  /** The inspector page showing this agent, when `createAgent({ inspector })` asked for one. */
  readonly inspector: InspectorServer | undefined;
  /** The stored session this agent runs, when it was created with a store. */
  readonly sessionId: string | undefined;
  /** Whether its shell commands run in an OS sandbox (`undefined`: no tool runs any). */
  readonly sandbox: SandboxStatus | undefined;
  /**
   * Resolves once the chart runs: at once, or once the session is open (with a session store)
   * and the MCP servers have connected or failed (with `mcpServers`). Rejects if the session
   * cannot be opened, or MCP servers are given without `@modelcontextprotocol/sdk` installed (the
   * reason is also an `error` notification).
   */
  readonly ready: Promise<void>;
  readonly #hub: NotificationHub;
  readonly #inFlight: InFlightWork;
  readonly #release: () => Promise<void>;
  readonly #mcpServers: () => McpServers | undefined;
  readonly #children: ReadonlyMap<string, Agent>;
  #parts: AgentParts | undefined;
  /** Events sent before the chart runs, delivered in order once it does. */
  #early: AgentEvent[] = [];
  #followsMicrosteps = false;
  #openFailure: unknown = undefined;
  #failure: unknown = undefined;

  /** @internal Use `createAgent`. */
  constructor(shell: AgentShell, parts: AgentParts | Promise<AgentParts>) {
    this.inspector = shell.inspector;
    this.sessionId = shell.sessionId;
    this.sandbox = shell.sandbox;
    this.#hub = shell.hub;
    this.#inFlight = shell.inFlight;
    this.#release = shell.release;
    this.#mcpServers = shell.mcpServers;
    this.#children = shell.children;
    if (parts instanceof Promise) {
      this.ready = parts.then(
        (running) => this.#attach(running),
        (error: unknown) => {
          this.#openFailure = error;
          this.#hub.emit('error', {
            message: `the agent could not start: ${errorMessage(error)}`,
            source: 'agent',
          });
          throw error;
        },
      );
      // Awaiting `ready` is optional: a failure is reported as a notification either way.
      this.ready.catch(() => undefined);
    } else {
      this.#attach(parts);
      this.ready = Promise.resolve();
    }
  }

  /** The underlying XState actor, for `subscribe`, `getSnapshot` and inspection. */
  get actor(): Actor<AgentMachine> {
    if (this.#parts === undefined) {
      throw new AgentStatechartError(
        'AGENT_NOT_READY',
        'the agent is still opening its session; await agent.ready first',
      );
    }
    return this.#parts.actor;
  }

  /** The current top-level state. */
  get state(): AgentStateName {
    return topStateOf(this.actor.getSnapshot().value);
  }

  /**
   * Where the chart is, nested states included (`{ WaitingForUserInput: 'SettlingCancelledCalls' }`
   * while tool calls an interrupt aborted are still reporting).
   */
  get stateValue(): AgentStateValue {
    return this.actor.getSnapshot().value;
  }

  /**
   * The current context: transcript, queue, tool calls, retries, … Text of the model call in
   * flight is in `streamingText`, at most one display frame (16 ms) behind the stream.
   */
  get context(): AgentContext {
    return this.actor.getSnapshot().context;
  }

  /**
   * What the model calls used and cost: the session's sums (a stored session's since it was
   * created) and the current turn's (the last turn's, between turns). Costs are in US dollars,
   * `null` when a model has no price (see `pricing`).
   *
   * @example
   * const { session, turn } = agent.usage;
   * console.log(`${session.calls} calls, $${session.costUsd?.toFixed(4)} (this turn: ${turn.calls})`);
   */
  get usage(): { session: UsageTotals; turn: UsageTotals } {
    const { usage, turn } = this.context;
    return { session: usage, turn: turn.usage };
  }
  /**
   * Sends the user's message. During a turn it is queued and starts the next one.
   *
   * @example
   * agent.send('Fix the failing test');
   */
  send(message: string | Message): void {
    this.dispatch({ type: 'UserInput', message: userMessage(message) });
  }

  /**
   * Runs one turn and resolves with its final answer, in the form `output` asks for (a zod schema
   * of an object, typed as it parses; or `{ schema, via: 'format' }` for the API's own structured
   * output, on models that have it) or the agent's own `output` option; without either, with
   * the text of the turn's last response. Waits first for the agent to be idle, so the turn is
   * this message's. Rejects with `NO_OUTPUT` when the turn ended without a valid answer (the
   * model did not give one though asked again, an interrupt, a limit, a failed model call), with
   * `PROMPT_DROPPED` when the message started no turn (the `userPromptSubmit` hook blocked it),
   * and as `waitUntilIdle` does.
   *
   * @example
   * const Review = z.object({ verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()) });
   * const review = await agent.run('Review the last commit', { output: Review });
   * if (review.verdict === 'reject') console.log(review.reasons.join('\n'));
   */
  async run<Schema extends z.ZodType>(
    message: string | Message,
    options: RunOptions & { output: Schema | (Omit<OutputSpec, 'schema'> & { schema: Schema }) },
  ): Promise<z.output<Schema>>;
  async run(
    message: string | Message,
    options?: RunOptions & { output?: OutputSpec },
  ): Promise<unknown>;
  async run(
    message: string | Message,
    options: RunOptions & { output?: OutputOption } = {},
  ): Promise<unknown> {
    const wait = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
    await this.waitUntilIdle(wait);
    const output = options.output === undefined ? undefined : outputSpecOf(options.output);
    let answer: { value: unknown } | undefined;
    let dropped: string | undefined;
    const errors: string[] = [];
    const stops = [
      this.#hub.on('output', ({ value }) => (answer ??= { value })),
      this.#hub.on('error', ({ message: text }) => errors.push(text)),
      this.#hub.on('promptDropped', ({ reason }) => (dropped ??= reason)),
    ];
    const messagesBefore = this.context.messages.length;
    try {
      this.dispatch({
        type: 'UserInput',
        message: userMessage(message),
        ...(output ? { output } : {}),
      });
      await this.waitUntilIdle(wait);
    } finally {
      for (const stop of stops) stop();
    }
    if (dropped !== undefined) {
      throw new AgentStatechartError('PROMPT_DROPPED', `the prompt started no turn: ${dropped}`);
    }
    const expected = output !== undefined || this.context.config.output !== null;
    if (!expected) return lastResponseText(this.context.messages.slice(messagesBefore));
    if (answer === undefined) {
      throw new AgentStatechartError(
        'NO_OUTPUT',
        `the turn ended without its answer${errors.length > 0 ? `: ${errors.at(-1)}` : ''}`,
      );
    }
    const schema = options.output === undefined ? undefined : zodSchemaOf(options.output);
    if (schema === undefined) return answer.value;
    const parsed = schema.safeParse(answer.value);
    if (!parsed.success) {
      throw new AgentStatechartError(
        'NO_OUTPUT',
        `the turn's answer does not parse with the output schema: ${parsed.error.message}`,
      );
    }
    return parsed.data;
  }

  /**
   * Cancels the current turn and keeps the agent: streamed text is kept, open tool calls are
   * answered as interrupted, in-flight work is aborted.
   *
   * @example
   * process.on('SIGINT', () => agent.interrupt());
   */
  interrupt(): void {
    this.dispatch({ type: 'Interrupt' });
  }

  /**
   * Compacts the transcript now: the model summarises all but the latest messages (with
   * `instructions` added to what the summary must keep; see `compaction`), and the transcript
   * becomes that summary followed by them. Only while the agent is idle; input sent meanwhile
   * queues, and starts its turn on the compacted transcript. Resolves with how it ended (see
   * {@link CompactionOutcome}: a compaction that could not happen is `skipped`, not a
   * rejection); rejects with `EVENT_NOT_ACCEPTED` when the agent is not idle (a turn or another
   * compaction is under way, or it stopped), with `INVALID_OPTION` when `instructions` is not a
   * string, and with `AGENT_FAILED` if the agent fails meanwhile.
   *
   * @example
   * await agent.waitUntilIdle();
   * const outcome = await agent.compact('Keep the open questions about the schema.');
   * if (outcome.status === 'compacted') console.log(`summarised ${outcome.summarised} messages`);
   * else console.log(`not compacted: ${outcome.reason}`);
   */
  async compact(instructions?: string): Promise<CompactionOutcome> {
    await this.ready;
    const checked = checkEvent({
      type: 'Compact',
      ...(instructions === undefined ? {} : { instructions }),
    });
    if (!checked.ok) {
      throw new AgentStatechartError('INVALID_OPTION', `compact: ${checked.problem}`);
    }
    const refusal = this.#refusal(checked.event);
    if (refusal !== null) {
      throw new AgentStatechartError(
        'EVENT_NOT_ACCEPTED',
        `the agent compacts only while it is idle, between turns: ${refusal.message}`,
      );
    }
    let outcome: CompactionOutcome | undefined;
    const stops = [
      this.#hub.on('compacted', ({ trigger, summary, summarised, kept }) => {
        if (trigger === 'manual') outcome ??= { status: 'compacted', summary, summarised, kept };
      }),
      this.#hub.on('compactionSkipped', ({ trigger, reason }) => {
        if (trigger === 'manual') outcome ??= { status: 'skipped', reason };
      }),
    ];
    try {
      this.actor.send(checked.event);
      // The chart's actions are heard before the snapshot they lead to: once no compaction asked
      // for is under way, the action that ended it (if any) was heard.
      await this.#waitFor((snapshot) => snapshot.context.window.compacting?.trigger !== 'manual');
    } finally {
      for (const stop of stops) stop();
    }
    return (
      outcome ?? {
        status: 'skipped',
        reason: 'the agent stopped before it ended; the transcript is as it was',
      }
    );
  }

  /**
   * Lets a call that waits for approval run; with `remember`, later calls of that tool run too.
   * With `input`, the call runs with that input instead of the model's (checked against the
   * tool's schema like the model's), and the model is told it was edited, and how.
   *
   * @example
   * agent.on('approvalRequest', ({ call }) => {
   *   if (call.name === 'bash') agent.approve(call.id, { input: { command: 'npm test -- --run' } });
   *   else agent.approve(call.id);
   * });
   */
  approve(
    callId: string,
    options: { remember?: boolean; input?: Record<string, unknown> } = {},
  ): void {
    (this.#askerOf(callId) ?? this).#dispatchApproval(callId, 'allow', options);
  }

  /**
   * Refuses a call that waits for approval; the model is told it was denied, with `reason` when
   * given, so it can do what was wanted instead.
   *
   * @example
   * agent.deny(call.id, { reason: 'do not touch the lockfile; edit package.json only' });
   */
  deny(callId: string, options: { remember?: boolean; reason?: string } = {}): void {
    (this.#askerOf(callId) ?? this).#dispatchApproval(callId, 'deny', options);
  }

  /**
   * Whether this agent, or a subagent of it, has a call waiting for approval under that id.
   *
   * @example
   * agent.awaitsApproval(call.id); // true until approve or deny answers it
   */
  awaitsApproval(callId: string): boolean {
    return this.#askerOf(callId) !== undefined;
  }

  /** This agent or the subagent (at any depth) whose call `callId` waits for approval. */
  #askerOf(callId: string): Agent | undefined {
    const runs = this.#parts?.actor.getSnapshot().context.toolRuns ?? [];
    if (runs.some((run) => run.call.id === callId && run.status === 'awaitingApproval')) {
      return this;
    }
    for (const child of this.#children.values()) {
      const asker = child.#askerOf(callId);
      if (asker !== undefined) return asker;
    }
    return undefined;
  }

  /**
   * Answers the questions of an `ask_user` call (a `question` notification; the agent needs
   * `askUser: true`): one answer per question, in the order asked — a choice's label or words of
   * the user's own, an array of them for a `multiSelect` question, `''` for no answer. The
   * answers are the call's result, which the model reads; once every call of the response has
   * its result, the turn goes on. Nothing is thrown: answers that are not strings (or arrays of
   * them) are a `MALFORMED_EVENT` diagnostic, and a call that is not waiting for answers, or a
   * wrong number of answers, an `EVENT_NOT_ACCEPTED` diagnostic that says which; either way
   * nothing changes, and the question still waits.
   *
   * @example
   * agent.on('question', ({ callId, questions }) => {
   *   // [{ header: 'Database', question: 'Which one?', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] },
   *   //  { header: 'Features', question: 'Which to build first?', options: […], multiSelect: true }]
   *   agent.answer(callId, ['SQLite', ['Search', 'Export']]);
   * });
   */
  answer(callId: string, answers: UserAnswers): void {
    this.dispatch({ type: 'UserAnswer', callId, answers });
  }

  /**
   * The questions of `ask_user` calls still waiting for answers, by call, in the order the model
   * asked them: what `question` notifications said and `answer` has not settled yet (for showing
   * them to someone who arrives late). Empty while the agent is not ready.
   *
   * @example
   * for (const { callId, questions } of agent.questions()) {
   *   console.log(callId, questions.map((question) => question.question).join(' / '));
   * }
   */
  questions(): QuestionsAsked[] {
    if (this.#parts === undefined) return [];
    return openQuestionsOf(this.#parts.actor.getSnapshot().context.toolRuns);
  }

  /**
   * Changes the permission mode; calls waiting for approval are re-checked.
   *
   * @example
   * agent.setPermissionMode('plan');
   */
  setPermissionMode(mode: PermissionMode): void {
    this.dispatch({ type: 'SetPermissionMode', mode });
  }

  /**
   * Where each of the agent's MCP servers stands (`mcpServers`): connected, restarting after it
   * went away, or given up on, with its tools and the tools left out. Empty without servers, or
   * while they connect.
   *
   * @example
   * for (const server of agent.mcpServers()) console.log(`${server.name}: ${server.state}`);
   */
  mcpServers(): McpServerStatus[] {
    return this.#mcpServers()?.status() ?? [];
  }

  /**
   * Sends any chart event. A malformed event, or one the current state does not take, changes
   * nothing and is reported as a `diagnostic`.
   *
   * @example
   * agent.dispatch({ type: 'SetPermissionMode', mode: 'acceptEdits' });
   */
  dispatch(event: AgentEvent): void {
    // The chart gets a plain-JSON copy: nothing the caller still holds can reach the context.
    const checked = checkEvent(event);
    if (!checked.ok) return this.#diagnose('MALFORMED_EVENT', checked.problem, event);
    const plain = checked.event;
    if (this.#parts === undefined) {
      if (this.#openFailure === undefined) {
        this.#early.push(plain);
        return;
      }
      return this.#diagnose(
        'AGENT_STOPPED',
        `${plain.type} ignored: the agent could not start (${errorMessage(this.#openFailure)})`,
        event,
      );
    }
    const refusal = this.#refusal(plain);
    if (refusal !== null) return this.#diagnose(refusal.code, refusal.message, event);
    this.#parts.actor.send(plain);
  }

  /** Why the running chart would not take `event` (it stopped, or its state refuses it). */
  #refusal(event: AgentEvent): { code: AgentDiagnosticCode; message: string } | null {
    const snapshot = this.actor.getSnapshot();
    if (snapshot.status !== 'active') {
      const why = this.#failure === undefined ? '' : ` (${errorMessage(this.#failure)})`;
      return {
        code: 'AGENT_STOPPED',
        message: `${event.type} ignored: the agent has stopped${why}`,
      };
    }
    return admit(snapshot, event);
  }

  /**
   * Listens to one kind of notification; returns the function that stops listening.
   *
   * @example
   * const stop = agent.on('state', ({ state }) => console.log('→', state));
   */
  on<Name extends AgentNotificationName>(name: Name, listener: AgentListener<Name>): () => void {
    if ((name === 'state' || name === 'toolEnd') && !this.#followsMicrosteps) {
      this.#followsMicrosteps = true;
      this.#parts?.followMicrosteps();
    }
    return this.#hub.on(name, listener);
  }

  /**
   * Resolves when the agent is idle (waiting for input with nothing queued, and not compacting)
   * or stopped. Rejects only if the agent failed (`AGENT_FAILED`: an internal error, or a session
   * it could no longer record, its `cause` saying which) or `timeoutMs` passed (`TIMED_OUT`).
   *
   * @example
   * agent.send('hi');
   * await agent.waitUntilIdle({ timeoutMs: 60_000 });
   */
  async waitUntilIdle(options: { timeoutMs?: number } = {}): Promise<void> {
    await this.ready;
    return this.#waitFor((snapshot) => atRest(snapshot.value, snapshot.context), options);
  }

  /**
   * Resolves once the chart's snapshot is `done`, or the chart stopped; rejects if the agent
   * failed (`AGENT_FAILED`) or `timeoutMs` passed (`TIMED_OUT`).
   */
  #waitFor(
    done: (snapshot: SnapshotFrom<AgentMachine>) => boolean,
    options: { timeoutMs?: number } = {},
  ): Promise<void> {
    const actor = this.actor;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = (): boolean => {
        const snapshot = actor.getSnapshot();
        if (this.#failure !== undefined || snapshot.status === 'error') {
          const cause = this.#failure ?? snapshot.error;
          reject(
            new AgentStatechartError('AGENT_FAILED', `the agent failed: ${errorMessage(cause)}`, {
              cause,
            }),
          );
          return true;
        }
        const finished = snapshot.status !== 'active' || done(snapshot);
        if (finished) resolve();
        return finished;
      };
      if (check()) return;
      const finish = () => {
        clearTimeout(timer);
        subscription.unsubscribe();
      };
      const subscription = actor.subscribe({
        next: () => {
          if (check()) finish();
        },
        error: () => {
          check();
          finish();
        },
        complete: () => {
          check();
          finish();
        },
      });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          finish();
          reject(
            new AgentStatechartError(
              'TIMED_OUT',
              `the agent was not idle after ${options.timeoutMs} ms (state ${describeStateValue(actor.getSnapshot().value)})`,
            ),
          );
        }, options.timeoutMs);
      }
    });
  }

  /**
   * Resolves once everything the agent has recorded so far is in its session store (at once for
   * an agent without one); rejects if the store failed.
   *
   * @example
   * agent.send('Deploy it');
   * await agent.recorded(); // the message is stored: acknowledge it
   */
  async recorded(): Promise<void> {
    await this.ready;
    await this.#parts?.recorded?.();
  }

  /**
   * Stops the agent. By default it cancels in-flight work at once (open tool calls are answered
   * as cancelled, so the transcript stays valid); with `drain` it lets the turn finish first.
   * Resolves once cancelled work has wound down. An agent with a session store keeps its session
   * open unless `endSession` says otherwise: work it cancels is resumed by the next agent on the
   * session, as after a crash.
   *
   * @example
   * await agent.shutdown({ drain: true });
   */
  async shutdown(options: ShutdownOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const started = Date.now();
    const opened = await this.ready.then(
      () => true,
      () => false,
    );
    if (!opened) {
      await this.#release();
      return;
    }
    if (options.drain) {
      await this.waitUntilIdle({ timeoutMs }).catch(() => undefined);
    }
    const keepsSession = this.sessionId !== undefined && options.endSession !== true;
    if (!keepsSession && this.actor.getSnapshot().status === 'active') {
      this.actor.send({ type: 'ShutdownRequested' });
    }
    // A kept session's in-flight work is cancelled by stopping the chart's actors.
    if (keepsSession) this.actor.stop();
    await this.#inFlight.settled(Math.max(0, timeoutMs - (Date.now() - started)));
    this.actor.stop();
    // What the shutdown recorded is stored before the agent says it stopped.
    await this.#parts?.recorded?.().catch(() => undefined);
    await this.#release();
  }

  /**
   * The agent as JSON, in the same format as `AgentCore.snapshot()`.
   *
   * @example
   * const stored = JSON.stringify(agent.snapshot());
   */
  snapshot(): AgentSnapshot {
    const snapshot = this.actor.getSnapshot();
    return {
      version: 1,
      state: topStateOf(snapshot.value),
      context: toStoredContext(snapshot.context),
    };
  }

  /**
   * Takes only `remember`, `reason` and `input` from the options, read from a plain-JSON copy of
   * them: spreading them into the event would let `{ decision: 'deny' }` turn an approval into a
   * denial. The chart's event check refuses a `reason` with an allow or an `input` with a deny.
   */
  #dispatchApproval(callId: string, decision: 'allow' | 'deny', options: unknown): void {
    const event = { type: 'ToolApproval', callId, decision, options };
    const copied = copyPlainJson(options, 'options');
    if (!copied.ok)
      return this.#diagnose('MALFORMED_EVENT', `ToolApproval: ${copied.problem}`, event);
    const read = copied.value;
    if (typeof read !== 'object' || read === null || Array.isArray(read)) {
      const problem = 'ToolApproval: options must be an object { remember?, reason?, input? }';
      return this.#diagnose('MALFORMED_EVENT', problem, event);
    }
    const { remember, reason, input } = read as Record<string, unknown>;
    this.dispatch({
      type: 'ToolApproval',
      callId,
      decision,
      ...(remember === undefined ? {} : { remember: remember as boolean }),
      ...(reason === undefined ? {} : { reason: reason as string }),
      ...(input === undefined ? {} : { input: input as Record<string, unknown> }),
    });
  }

  #diagnose(code: AgentDiagnosticCode, message: string, event: unknown): void {
    const value = this.#parts?.actor.getSnapshot().value;
    const state = value === undefined ? 'WaitingForUserInput' : topStateOf(value);
    const diagnostic: AgentDiagnostic = { code, message, state, event };
    this.#hub.emit('diagnostic', diagnostic);
  }

  #attach(parts: AgentParts): void {
    this.#parts = parts;
    parts.actor.subscribe({
      error: (error) => {
        this.#failure = error;
        this.#hub.emit('error', {
          message: `the agent stopped on an internal error: ${errorMessage(error)}`,
          source: 'agent',
        });
      },
    });
    // Work the session cannot record must not go on: a newer agent on the session (or the next
    // one, after a failed store) resumes it from what was recorded.
    void parts.unrecordable?.then((error) => {
      if (this.#failure !== undefined) return;
      this.#failure = error;
      this.#hub.emit('error', {
        message: `the session could not be recorded, so the agent stopped: ${errorMessage(error)}`,
        source: 'agent',
      });
      parts.actor.stop();
    });
    if (this.#followsMicrosteps) parts.followMicrosteps();
    parts.actor.start();
    for (const event of parts.openingEvents) this.dispatch(event);
    const early = this.#early;
    this.#early = [];
    for (const event of early) this.dispatch(event);
  }
}
