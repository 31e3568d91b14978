/**
 * Actor mode, ready to use: the chart started as an XState actor with the package's own actors
 * (Anthropic streaming, the tool registry, git auto-commit, a retry timer), each replaceable, and
 * a small handle to talk to it.
 */
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import {
  type Actor,
  type AnyActorLogic,
  createActor,
  fromCallback,
  type InspectionEvent,
  type Observer,
} from 'xstate';
import {
  type AgentDiagnostic,
  type AgentDiagnosticCode,
  type AgentSnapshot,
  toStoredContext,
} from '../machine/agentCore.js';
import { type AgentMachine, agentMachine } from '../machine/agentMachine.js';
import type { AgentContext } from '../machine/context.js';
import type {
  AgentConfig,
  AgentEvent,
  AgentStateName,
  Message,
  PermissionMode,
} from '../machine/types.js';
import { transcriptLogFrom } from '../machine/transcript.js';
import { validateEvent } from '../machine/validateEvent.js';
import {
  type AgentListener,
  type AgentNotificationName,
  NotificationHub,
} from './agentNotifications.js';
import { InFlightWork } from '../actors/inFlightWork.js';
import { bindDeltaChannel, DeltaChannel } from '../actors/deltaChannel.js';
import { llmCallback } from '../actors/llmActor.js';
import { gitAutoCommitCallback, noPostToolsHookCallback } from '../actors/postToolsHookActor.js';
import { retryTimerCallback } from '../actors/retryTimerActor.js';
import { toolCallback } from '../actors/toolActor.js';
import { type AgentServices, bindAgentServices, sharedAgentMachine } from './sharedAgentMachine.js';
import { createBuiltinTools } from '../actors/tools/builtins/createBuiltinTools.js';
import { createToolRegistry, type ToolRegistry } from '../actors/tools/createToolRegistry.js';
import type { Tool } from '../actors/tools/defineTool.js';
import {
  createInspectorServer,
  type InspectorServer,
  type InspectorServerOptions,
} from '../inspect/createInspectorServer.js';

/**
 * The invoked actors of the chart; any of them can be replaced, by actor logic of any kind, or
 * by a callback body (what you would pass to `fromCallback`). Callback bodies keep the agent on
 * the machine all agents share; actor logic gives the agent a machine of its own (about 22 KB).
 *
 * @example
 * const actors: AgentActors = { retryTimer: createRetryTimerActor({ scale: 0.01 }) };
 */
export interface AgentActors {
  llm?: AnyActorLogic | AgentServices['llm'];
  tool?: AnyActorLogic | AgentServices['tool'];
  postToolsHook?: AnyActorLogic | AgentServices['postToolsHook'];
  retryTimer?: AnyActorLogic | AgentServices['retryTimer'];
}

/**
 * Options of {@link createAgent}: the chart's config (`maxRetries`, `model`, `system`,
 * `permissions`, …) plus where and how the agent works.
 *
 * @example
 * const options: CreateAgentOptions = {
 *   workspace: '/srv/repo',
 *   system: 'You are a careful coding agent.',
 *   permissions: { mode: 'acceptEdits', deny: ['bash'] },
 * };
 */
export interface CreateAgentOptions extends Omit<AgentConfig, 'tools'> {
  /** Root the tools work in (default: the current directory). */
  workspace?: string;
  /** The tools the model may call (default: the built-ins, confined to `workspace`). */
  tools?: Tool[];
  /**
   * The Anthropic client, or options to build one (`apiKey`, `baseURL`, …; by default the SDK
   * reads `ANTHROPIC_API_KEY`). The client's own retries are turned off: the chart retries.
   */
  anthropic?: Anthropic | ClientOptions;
  /** Commit the workspace with git after a successful mutating tool (default true). */
  autoCommit?: boolean;
  /** Overrides every tool's timeout, in milliseconds. */
  toolTimeoutMs?: number;
  /** Multiplies retry delays (tests and demos use a small value). Default 1. */
  retryDelayScale?: number;
  /** Start from an existing transcript (copied: the agent never writes to your array). */
  messages?: Message[];
  /** Replace any of the invoked actors. */
  actors?: AgentActors;
  /**
   * An XState inspection observer (for example Stately's inspector). While inspected, the chart
   * also receives streamed text every I/O tick (otherwise it catches up on demand), so the
   * observer sees the stream as it happens.
   */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /**
   * Show this agent in the offline inspector page: options to start one for this agent (it
   * binds 127.0.0.1 unless told otherwise, with a token; read its address from
   * `agent.inspector.ready`), or a running `InspectorServer` shared by many agents.
   */
  inspector?: (InspectorServerOptions & { name?: string }) | InspectorServer;
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
}

/**
 * An agent running in actor mode. Everything it does is observable through `on`; nothing it does
 * can throw into the host or leave an unhandled rejection behind.
 *
 * @example
 * const agent = createAgent({ workspace: process.cwd() });
 * agent.on('text', ({ text }) => process.stdout.write(text));
 * agent.send('List the files here');
 * await agent.waitUntilIdle();
 * await agent.shutdown();
 */
export class Agent {
  /** The underlying XState actor, for `subscribe`, `getSnapshot` and inspection. */
  readonly actor: Actor<AgentMachine>;
  readonly #hub: NotificationHub;
  /** The inspector page showing this agent, when `createAgent({ inspector })` asked for one. */
  readonly inspector: InspectorServer | undefined;
  readonly #inFlight: InFlightWork;
  readonly #ownsInspector: boolean;
  readonly #followStates: () => void;
  readonly #deltas: DeltaChannel | undefined;
  #failure: unknown = undefined;

  /** @internal Use {@link createAgent}. */
  constructor(
    actor: Actor<AgentMachine>,
    hub: NotificationHub,
    inFlight: InFlightWork,
    inspector?: { server: InspectorServer; owned: boolean },
    followStates: () => void = () => undefined,
    deltas?: DeltaChannel,
  ) {
    this.actor = actor;
    this.#deltas = deltas;
    this.#followStates = followStates;
    this.#hub = hub;
    this.#inFlight = inFlight;
    this.inspector = inspector?.server;
    this.#ownsInspector = inspector?.owned ?? false;
    actor.subscribe({
      error: (error) => {
        this.#failure = error;
        hub.emit('error', {
          message: `the agent stopped on an internal error: ${messageOf(error)}`,
          source: 'agent',
        });
      },
    });
  }

  /** The current top-level state. */
  get state(): AgentStateName {
    return this.actor.getSnapshot().value;
  }

  /**
   * The current context: transcript, queue, tool calls, retries, … Text streamed so far is in
   * `streamingText` (read through here: `agent.actor.getSnapshot()` may lag behind the stream
   * until the chart's next event, see {@link createAgent}).
   */
  get context(): AgentContext {
    this.#deltas?.flush();
    return this.actor.getSnapshot().context;
  }

  /**
   * Sends the user's message. During a turn it is queued and starts the next one.
   *
   * @example
   * agent.send('Fix the failing test');
   */
  send(message: string | Message): void {
    const payload: Message =
      typeof message === 'string' ? { role: 'user', content: message } : message;
    this.dispatch({ type: 'UserInput', message: payload });
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
   * Lets a call that waits for approval run; with `remember`, later calls of that tool run too.
   *
   * @example
   * agent.on('approvalRequest', ({ call }) => agent.approve(call.id));
   */
  approve(callId: string, options: { remember?: boolean } = {}): void {
    this.dispatch({ type: 'ToolApproval', callId, decision: 'allow', ...options });
  }

  /**
   * Refuses a call that waits for approval; the model is told it was denied.
   *
   * @example
   * agent.deny(call.id, { remember: true });
   */
  deny(callId: string, options: { remember?: boolean } = {}): void {
    this.dispatch({ type: 'ToolApproval', callId, decision: 'deny', ...options });
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
   * Sends any chart event. A malformed event, or one the current state does not take, changes
   * nothing and is reported as a `diagnostic`.
   *
   * @example
   * agent.dispatch({ type: 'SetPermissionMode', mode: 'acceptEdits' });
   */
  dispatch(event: AgentEvent): void {
    const problem = validateEvent(event);
    if (problem !== null) return this.#diagnose('MALFORMED_EVENT', problem, event);
    // Text already shown reaches the chart first: an interrupt keeps all of it.
    this.#deltas?.flush();
    const snapshot = this.actor.getSnapshot();
    if (snapshot.status !== 'active') {
      return this.#diagnose('AGENT_STOPPED', `${event.type} ignored: the agent has stopped`, event);
    }
    if (!snapshot.can(event)) {
      return this.#diagnose(
        'EVENT_NOT_ACCEPTED',
        `${event.type} is not accepted in state ${snapshot.value}; nothing changed`,
        event,
      );
    }
    this.actor.send(event);
  }

  /**
   * Listens to one kind of notification; returns the function that stops listening.
   *
   * @example
   * const stop = agent.on('state', ({ state }) => console.log('→', state));
   */
  on<Name extends AgentNotificationName>(name: Name, listener: AgentListener<Name>): () => void {
    // State changes and tool ends are read off microsteps, which need inspection switched on.
    if (name === 'state' || name === 'toolEnd') this.#followStates();
    return this.#hub.on(name, listener);
  }

  /**
   * Resolves when the agent is idle (waiting for input with nothing queued) or stopped. Rejects
   * only if the agent failed internally or `timeoutMs` passed.
   *
   * @example
   * agent.send('hi');
   * await agent.waitUntilIdle({ timeoutMs: 60_000 });
   */
  waitUntilIdle(options: { timeoutMs?: number } = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const check = (): boolean => {
        const snapshot = this.actor.getSnapshot();
        if (this.#failure !== undefined || snapshot.status === 'error') {
          reject(new Error(`the agent failed: ${messageOf(this.#failure ?? snapshot.error)}`));
          return true;
        }
        const idle =
          snapshot.status !== 'active' ||
          (snapshot.value === 'WaitingForUserInput' && snapshot.context.queue.length === 0);
        if (idle) resolve();
        return idle;
      };
      if (check()) return;
      const subscription = this.actor.subscribe({
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
      const finish = () => {
        clearTimeout(timer);
        subscription.unsubscribe();
      };
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          finish();
          reject(
            new Error(`the agent was not idle after ${options.timeoutMs} ms (state ${this.state})`),
          );
        }, options.timeoutMs);
      }
    });
  }

  /**
   * Stops the agent. By default it cancels in-flight work at once (open tool calls are answered
   * as cancelled, so the transcript stays valid); with `drain` it lets the turn finish first.
   * Resolves once cancelled work has wound down.
   *
   * @example
   * await agent.shutdown({ drain: true });
   */
  async shutdown(options: ShutdownOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const started = Date.now();
    if (options.drain) {
      await this.waitUntilIdle({ timeoutMs }).catch(() => undefined);
    }
    this.#deltas?.flush();
    if (this.actor.getSnapshot().status === 'active')
      this.actor.send({ type: 'ShutdownRequested' });
    await this.#inFlight.settled(Math.max(0, timeoutMs - (Date.now() - started)));
    this.actor.stop();
    // A page started for this agent alone goes with it; a shared one stays for the others.
    if (this.#ownsInspector) await this.inspector?.close();
  }

  /**
   * The agent as JSON, in the same format as `AgentCore.snapshot()`.
   *
   * @example
   * const stored = JSON.stringify(agent.snapshot());
   */
  snapshot(): AgentSnapshot {
    this.#deltas?.flush();
    const snapshot = this.actor.getSnapshot();
    return { version: 1, state: snapshot.value, context: toStoredContext(snapshot.context) };
  }

  #diagnose(code: AgentDiagnosticCode, message: string, event: unknown): void {
    const diagnostic: AgentDiagnostic = { code, message, state: this.state, event };
    this.#hub.emit('diagnostic', diagnostic);
  }
}

/**
 * Starts an agent in actor mode: the chart with the Anthropic streaming actor, the tool registry
 * (built-ins confined to the workspace by default), git auto-commit and a retry timer.
 *
 * @example
 * import { createAgent } from 'agent-statechart';
 *
 * const agent = createAgent({ workspace: '/srv/repo', permissions: { mode: 'acceptEdits' } });
 * agent.on('text', ({ text }) => process.stdout.write(text));
 * agent.on('approvalRequest', ({ call }) => agent.approve(call.id));
 * agent.send('Rename the greeting in hello.txt to "Hi"');
 * await agent.waitUntilIdle();
 * await agent.shutdown();
 */
export function createAgent(options: CreateAgentOptions = {}): Agent {
  const workspace = options.workspace ?? process.cwd();
  const registry = registryFor(options.tools);
  const inFlight = new InFlightWork();
  const hub = new NotificationHub((error) => {
    // An `error` listener that throws has nowhere left to report to but the console.
    console.error('agent-statechart: an error listener threw', error);
  });
  // Callback bodies replace services and keep the shared machine; actor logic needs its own.
  // A service that is replaced is never built (an idle agent keeps only what it uses). The
  // closures below read locals, never `options`: a closure that kept `options` would keep the
  // caller's initial messages alive for the agent's life.
  const custom = options.actors ?? {};
  const { anthropic, toolTimeoutMs, autoCommit, retryDelayScale } = options;
  const body = <Key extends keyof AgentServices>(
    key: Key,
    build: () => AgentServices[Key],
  ): AgentServices[Key] => {
    const given = custom[key];
    return typeof given === 'function' ? (given as AgentServices[Key]) : build();
  };
  const services: AgentServices = {
    llm: body('llm', () => llmCallback({ client: clientFor(anthropic), inFlight })),
    tool: body('tool', () =>
      toolCallback({
        registry,
        workspace,
        inFlight,
        ...(toolTimeoutMs === undefined ? {} : { timeoutMs: toolTimeoutMs }),
      }),
    ),
    postToolsHook: body('postToolsHook', () =>
      autoCommit === false
        ? noPostToolsHookCallback
        : gitAutoCommitCallback({
            workspace,
            inFlight,
            isMutating: (name) => registry.isMutating(name),
            onResult: (result) => {
              if (result.commit) hub.emit('commit', result.commit);
              if (result.error)
                hub.emit('error', {
                  message: `auto-commit failed: ${result.error}`,
                  source: 'hook',
                });
            },
          }),
    ),
    retryTimer: body('retryTimer', () => retryTimerCallback({ scale: retryDelayScale ?? 1 })),
  };
  const config = configFor(options, registry);
  const logicOf = (key: keyof AgentServices): AnyActorLogic => {
    const given = custom[key];
    if (given !== undefined && typeof given !== 'function') return given;
    return fromCallback(services[key] as AgentServices['llm']);
  };
  const ownMachine = Object.values(custom).some(
    (given) => given !== undefined && typeof given !== 'function',
  );
  const machine = ownMachine
    ? agentMachine.provide({
        actors: {
          llm: logicOf('llm'),
          tool: logicOf('tool'),
          postToolsHook: logicOf('postToolsHook'),
          retryTimer: logicOf('retryTimer'),
        },
      })
    : sharedAgentMachine();

  const userInspect = options.inspect;
  const inspector = startInspector(options.inspector, hub);
  // Inspection costs about a quarter of each event's time, so it is only switched on when
  // something needs it: an observer or page given here, or a `state`/`toolEnd` listener later.
  let follow: ((snapshot: AgentSnapshotView) => void) | undefined;
  const observe = (event: InspectionEvent) => {
    if (follow && event.type === '@xstate.microstep' && event.actorRef === actor) {
      follow(event.snapshot as unknown as AgentSnapshotView);
    }
    inspector?.record(event);
    if (userInspect === undefined) return;
    if (typeof userInspect === 'function') userInspect(event);
    else userInspect.next?.(event);
  };
  const observedFromStart = userInspect !== undefined || inspector !== undefined;
  const actor: Actor<AgentMachine> = createActor(machine, {
    input: options.messages
      ? { config, messages: transcriptLogFrom(options.messages) }
      : { config },
    ...(observedFromStart ? { inspect: observe } : {}),
  });
  const followStates = () => {
    if (follow !== undefined) return;
    follow = microstepFollower(hub, actor.getSnapshot());
    if (!observedFromStart) actor.system.inspect(observe);
  };
  // Streamed text reaches listeners once per I/O tick; the chart gets its copy with it while
  // something inspects the chart (so a live view shows the stream), else only when needed:
  // before the chart's next event or a read of the context. Streaming then costs a string
  // append per delta and a listener call per tick, not a machine transition.
  const deltas = new DeltaChannel({
    show: (text) => {
      hub.emit('text', { text });
      if (hub.has('action')) hub.emit('action', { type: 'DisplayMessage', text });
    },
    chartUpdates: observedFromStart ? 'withEachBatch' : 'onDemand',
  });
  bindAgentServices(actor.system, services);
  bindDeltaChannel(actor.system, deltas);
  wireNotifications(actor, hub);
  const agent = new Agent(actor, hub, inFlight, inspector, followStates, deltas);
  actor.start();
  return agent;
}

function wireNotifications(actor: Actor<AgentMachine>, hub: NotificationHub): void {
  actor.on('*', (action) => {
    hub.emit('action', action);
    switch (action.type) {
      case 'DisplayMessage':
        return hub.emit('text', { text: action.text });
      case 'DisplayError':
        return hub.emit('error', { message: action.message, source: 'chart' });
      case 'ExecuteTools':
        for (const call of action.calls) hub.emit('toolStart', { call });
        return;
      case 'RequestApproval':
        return hub.emit('approvalRequest', { call: action.call });
      case 'ScheduleRetry':
        return hub.emit('retry', { delayMs: action.delayMs, attempt: action.attempt });
      default:
        return;
    }
  });
}

/** What the notifications read of a snapshot. */
interface AgentSnapshotView {
  value: AgentStateName;
  context: AgentContext;
}

/**
 * Reports state changes and tool ends in the order they happen. Microsteps show every state the
 * chart passes through (the transient ProcessingLlmResponse included), and reading tool ends off
 * the context reports them whichever tool actor ran the call.
 */
function microstepFollower(hub: NotificationHub, from: AgentSnapshotView) {
  let state: AgentStateName = from.value;
  let runs: AgentContext['toolRuns'] = from.context.toolRuns;
  return (snapshot: AgentSnapshotView) => {
    const next = snapshot.context.toolRuns;
    if (next !== runs) {
      const before = new Map(runs.map((run) => [run.call.id, run.status]));
      runs = next;
      for (const run of next) {
        if (run.status === 'done' && before.get(run.call.id) !== 'done' && run.outcome) {
          hub.emit('toolEnd', { call: run.call, outcome: run.outcome });
        }
      }
    }
    if (snapshot.value !== state) {
      const previous = state;
      state = snapshot.value;
      hub.emit('state', { state, previous });
    }
  };
}

/** The inspector page for this agent, if asked for: one started here, or a shared one. */
function startInspector(
  given: CreateAgentOptions['inspector'],
  hub: NotificationHub,
):
  | { server: InspectorServer; owned: boolean; record: (event: InspectionEvent) => void }
  | undefined {
  if (given === undefined) return undefined;
  const owned = !('ready' in given);
  const server = owned ? createInspectorServer(given) : given;
  const observer = server.observe(owned && given.name !== undefined ? { name: given.name } : {});
  // A page that cannot listen (port taken) is reported; the agent runs on without it.
  server.ready.catch((error: unknown) =>
    hub.emit('error', {
      message: `the inspector page could not start: ${messageOf(error)}`,
      source: 'agent',
    }),
  );
  return { server, owned, record: observer };
}

let builtinRegistry: ToolRegistry | undefined;
const registries = new WeakMap<readonly Tool[], ToolRegistry>();

/**
 * The registry of a tools array, made once per array: agents given the same tools share it
 * (a registry holds no per-agent state; each call gets its workspace). The built-ins by default.
 */
function registryFor(tools: Tool[] | undefined): ToolRegistry {
  if (tools === undefined) {
    builtinRegistry ??= createToolRegistry(createBuiltinTools());
    return builtinRegistry;
  }
  let registry = registries.get(tools);
  if (registry === undefined) {
    registry = createToolRegistry(tools);
    registries.set(tools, registry);
  }
  return registry;
}

/** The model client: the one given, or a factory that builds one on the first call. */
function clientFor(anthropic: CreateAgentOptions['anthropic']): Anthropic | (() => Anthropic) {
  return anthropic instanceof Anthropic
    ? anthropic
    : () => new Anthropic({ ...anthropic, maxRetries: 0 });
}

const configsByRegistry = new WeakMap<ToolRegistry, Map<string, AgentConfig>>();

/**
 * The chart's config for these options, one object for every agent configured alike, so the
 * chart's resolved config (cached by config object) is shared too.
 */
function configFor(options: CreateAgentOptions, registry: ToolRegistry): AgentConfig {
  const picked = pickConfig(options);
  const key = JSON.stringify(picked);
  let byKey = configsByRegistry.get(registry);
  if (byKey === undefined) {
    byKey = new Map();
    configsByRegistry.set(registry, byKey);
  }
  let config = byKey.get(key);
  if (config === undefined) {
    config = { ...picked, tools: registry.specs() };
    // Bounded: a service configures its agents a few ways, not one way per agent.
    if (byKey.size < 64) byKey.set(key, config);
  }
  return config;
}

function pickConfig(options: CreateAgentOptions): Omit<AgentConfig, 'tools'> {
  const { maxRetries, model, maxTokens, system, retry, permissions } = options;
  const config: Omit<AgentConfig, 'tools'> = {};
  if (maxRetries !== undefined) config.maxRetries = maxRetries;
  if (model !== undefined) config.model = model;
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  if (system !== undefined) config.system = system;
  if (retry !== undefined) config.retry = retry;
  if (permissions !== undefined) config.permissions = permissions;
  return config;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
