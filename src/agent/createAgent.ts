/**
 * Actor mode, ready to use: the chart started as an XState actor with the package's own actors,
 * each replaceable, behind a small handle.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ClientOptions } from '@anthropic-ai/sdk';
import { type Actor, createActor, type InspectionEvent, type Observer } from 'xstate';
import {
  createBuiltinTools,
  createToolRegistry,
  InFlightWork,
  liveToolRegistry,
  type ActorFailureHandler,
  type OutputOption,
  outputSpecOf,
  type LlmRequestFields,
  type LlmTransportChoice,
  resolveLlmTransport,
  type Tool,
  type AgentHooks,
  hookSwitches,
  type ToolRegistry,
} from '../actors/index.js';
import {
  type AgentConfig,
  type AgentEvent,
  type AgentMachine,
  agentMachine,
  type AgentStateName,
  AgentStatechartError,
  type EffectStart,
  errorMessage,
  type Message,
  type PermissionConfig,
  type PermissionMode,
  resolveConfig,
  DEFAULT_SUBAGENT_DEPTH,
  type SubagentActorInput,
  subagentScope,
  restoreMachineSnapshot,
  topStateOf,
} from '../machine/index.js';
import {
  type OpenedSession,
  openSession,
  recordActor,
  type SessionStore,
  childLink,
  subagentLinkOf,
  subagentSessionId,
} from '../persistence/index.js';
import {
  AgentTracer,
  keepingStoredParent,
  type TelemetryOptions,
  telemetryOptions,
  traceActor,
  withTraceParent,
} from '../telemetry/index.js';
import type { McpServerConfig, McpServers } from '../mcp/index.js';
import { Agent, type AgentParts } from './agent.js';
import { type AgentActors, agentActors, checkAgentActors } from './agentActors.js';
import { agentMcp, followMcpServers } from './agentMcp.js';
import { NotificationHub, notifyActions } from './agentNotifications.js';
import {
  type AttachedInspector,
  attachInspector,
  type InspectorOption,
} from './inspectorOption.js';
import { microstepNotifier } from './microstepNotifications.js';
import { registerAgentActors, sharedAgentMachine } from './sharedAgentMachine.js';
import type { SubagentChildren } from './subagentActor.js';
import { announceAtStart, mcpNotices, sandboxOf, startupNotices } from './startupDiagnostics.js';

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
export interface CreateAgentOptions extends Omit<
  AgentConfig,
  'tools' | 'request' | 'output' | 'hooks'
> {
  /**
   * Your code at the points of a turn (each hook may be async, and is given an `AbortSignal`):
   *
   * - `userPromptSubmit`, before a prompt starts a turn: it may block it (the model never sees
   *   it; a `promptDropped` notification hands it back with the reason), or add a note the model
   *   reads after it.
   * - `preToolUse`, before each tool call: it may allow, deny (with a reason the model reads), ask
   *   for a person's approval, change the input, or add a note for the model, before the
   *   permission rules decide. The order with the permissions: the hook's deny, then deny rules
   *   and remembered denials, `plan` mode, tools that always ask and the hook's ask, then the
   *   hook's allow, then the mode and the allow rules.
   * - `postToolUse`, after each call ran: it may add a note after the result, or replace a failed
   *   call's error.
   * - `stop`, when the model ends its response without calling a tool: it may have the turn go on,
   *   once per turn, with a reason the model reads as its next instruction.
   *
   * A hook that throws, answers something malformed or takes longer than `hookTimeoutMs` fails
   * closed before a call (the call is denied, the model is told why) and open everywhere else (the
   * prompt, the result or the end of the turn stands); either way an `error` notification says
   * so. Each answer is recorded: a resumed session does not ask a hook again about what it
   * decided, and asks again what it had not.
   *
   * @example
   * const agent = createAgent({
   *   hooks: {
   *     preToolUse: ({ call }) =>
   *       call.name === 'write_file' && String(call.input.path).startsWith('migrations/')
   *         ? { decision: 'deny', reason: 'migrations are generated: change the schema instead' }
   *         : undefined,
   *     stop: async () =>
   *       (await testsPass()) ? undefined : { decision: 'continue', reason: 'the tests fail: fix them' },
   *   },
   * });
   */
  hooks?: AgentHooks;
  /** How long one hook may take, in milliseconds. Default 60 000. */
  hookTimeoutMs?: number;
  /**
   * How many levels of subagents below this agent may run: with 2 (the default), a subagent may
   * hand tasks to subagents of its own (the same `agents`), whose own are offered none. Each
   * subagent runs as a child agent with its spec's system prompt, model and `maxTurns`, the
   * tools its spec names (some of this agent's), this agent's permission rules and its mode as
   * the task starts (never a wider one), and this agent's tool hooks; its approval requests are
   * this agent's `approvalRequest` notifications, tagged with the `subagent` path, and what it
   * does reaches `subagent` listeners.
   */
  maxSubagentDepth?: number;
  /**
   * Every turn ends with a final answer in this form: a zod schema of an object (or the chart's
   * `OutputSpec`, a JSON Schema). The model gives the answer by calling a `final_answer` tool
   * whose input is the answer; an answer that does not match is sent back with what to fix, and
   * a turn that ends without one asks once more, then ends with a `DisplayError`. Read it with
   * `agent.run`, or the `output` notification. One turn's own form: `agent.run(message, { output })`.
   * `{ schema, via: 'format' }` asks for the answer in the API's own structured-output format
   * instead (`output_config.format`), for the models that support it: no answer tool, the final
   * text is the answer.
   */
  output?: OutputOption;
  /**
   * Further fields of every model request, as the Anthropic SDK types them: `thinking`,
   * `output_config` (`effort`), `metadata`, `stop_sequences`, `tool_choice`, `service_tier`, …
   * The chart's own fields (`model`, `max_tokens`, `messages`, `system`, `tools`, `stream`,
   * `container`) have options of their own and are refused here.
   */
  request?: LlmRequestFields;
  /**
   * Offer the model the built-in `ask_user` tool, with which it puts one to four questions to
   * the user (each under a short header, with choices where it has some, several of which may be
   * picked where it says `multiSelect`) when it needs a decision or a fact only the user has.
   * Each call is a `question` notification; the turn waits until `agent.answer(callId, answers)`
   * gives its answers, which the model reads as the call's result (`agent.questions()` lists
   * those still open). An interrupt or a shutdown answers an open question for the model as not
   * answered. No permission applies: the call runs nothing.
   *
   * Default false: an agent with nobody to answer — a service, a batch job — would wait for
   * good, so turn it on only where someone reads `question` and answers.
   *
   * @example
   * const agent = createAgent({ askUser: true });
   * agent.on('question', ({ callId, questions }) => agent.answer(callId, questions.map(() => '')));
   */
  askUser?: boolean;
  /** Root the tools work in (default: the current directory). */
  workspace?: string;
  /**
   * The tools the model may call (default: the built-ins, confined to `workspace`). Making the
   * built-ins probes the OS sandbox, a process start: a service creating many agents makes them
   * once with `createBuiltinTools()` and passes them to each (`createAgentHost` does).
   */
  tools?: Tool[];
  /**
   * MCP servers whose tools the agent may call, by name: `{ command, args?, env?, cwd? }` for a
   * server started as a child process, `{ url, headers? }` for one reached over HTTP (the
   * `mcpServers` shape of Claude Code's `.mcp.json`). Their tools join `tools` as
   * `mcp__<server>__<tool>`; permission rules name them (`mcp__github__*`). Read-only tools (the
   * server's `readOnlyHint`) run in every mode; the others are mutating, and ask where mutating
   * tools ask; override per tool with `tools`. The servers connect before the first turn (see
   * `ready`) and close on `shutdown`. Or pass servers connected once with `connectMcpServers` (or
   * the promise of them), to share them among agents: the caller closes those. Needs
   * `@modelcontextprotocol/sdk`.
   */
  mcpServers?: Record<string, McpServerConfig> | McpServers | Promise<McpServers>;
  /**
   * The Anthropic client, or options to build one (`apiKey`, `baseURL`, …; by default the SDK
   * reads `ANTHROPIC_API_KEY`). The client's own retries are turned off: the chart retries.
   */
  anthropic?: Anthropic | ClientOptions;
  /**
   * How the model calls go over the wire when the agent builds its client from `anthropic`
   * options (default `'auto'`): `'lean'` sends the request the SDK builds over a keep-alive
   * connection pool of the agent's own and decodes the event stream itself, `'sdk'` uses the
   * SDK's own streaming, `'auto'` is lean unless the options need the SDK (a custom `fetch`,
   * `fetchOptions`, `middleware`, credential providers, OpenTelemetry, request logging). A
   * client instance always streams through the SDK. Left out, the environment variable
   * `AGENT_STATECHART_TRANSPORT` (`auto`, `lean` or `sdk`) chooses, else `'auto'`. See
   * `LlmTransportChoice`.
   */
  transport?: LlmTransportChoice;
  /**
   * Permission mode and rules. Default `{ mode: 'acceptEdits' }`: edits in the workspace run,
   * `bash` asks. `{ mode: 'bypassPermissions' }` runs every tool without asking.
   */
  permissions?: PermissionConfig;
  /**
   * Commit what the agent changed with git after a successful mutating tool (default true): the
   * files its tools reported changing, never the user's own uncommitted or ignored files.
   */
  autoCommit?: boolean;
  /** Overrides every tool's timeout, in milliseconds. */
  toolTimeoutMs?: number;
  /** Multiplies retry delays (tests and demos use a small value). Default 1. */
  retryDelayScale?: number;
  /**
   * Start from an existing transcript (copied: the agent never keeps your array). A `tool_use`
   * it leaves without a `tool_result` is answered as interrupted before the first request (a
   * `TRANSCRIPT_REPAIRED` diagnostic says which). With a `store`, the transcript seeds a session
   * created now; a session that exists already starts from its own log, and `ready` rejects
   * with `INVALID_OPTION` (fork it with `forkSession` instead).
   */
  messages?: Message[];
  /**
   * Keep the session in this store: every step is recorded, and an agent created again with the
   * same `sessionId` (after a restart, or a crash) goes on where it stopped. See
   * `createSqliteSessionStore`.
   */
  store?: SessionStore;
  /**
   * The session to create or resume in `store`. Opening it claims it: an agent that opened the
   * same session earlier, in this process or another, can no longer write to it: at its next
   * step that agent stops, and its `waitUntilIdle()` rejects with `AGENT_FAILED` (caused by
   * `SESSION_FENCED`). Any store failure stops an agent the same way.
   */
  sessionId?: string;
  /** Kept with a session created now (a title, an owner). */
  sessionMetadata?: Record<string, unknown>;
  /** Replace any of the invoked actors. */
  actors?: AgentActors;
  /**
   * An XState inspection observer (for example Stately's inspector). It watches the agent's
   * subagents too, each an actor of its own.
   */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /**
   * Show this agent in the offline inspector page: options to start one for this agent (it
   * binds 127.0.0.1 unless told otherwise; read its address from `agent.inspector.ready`), or a
   * running `InspectorServer` (from `agent-statechart/inspect`) shared by many agents, alone or
   * as `{ server, name }`. Its subagents are shown on the same page, each named after the path
   * of agents down to it (`lead › researcher`).
   */
  inspector?: InspectorOption;
  /**
   * Trace the agent with OpenTelemetry (needs the `@opentelemetry/api` package): `true` for the
   * global tracer provider, or options (a tracer, the agent's name, whether to record message
   * content). One `invoke_agent` span per turn, with `chat` and `execute_tool` spans under it;
   * `gen_ai.conversation.id` is the `sessionId`. Subagents are traced too, each turn of one
   * under its task call's `execute_tool` span. Off by default: nothing is loaded or traced.
   */
  telemetry?: boolean | TelemetryOptions;
}

/**
 * Starts an agent in actor mode: the chart with the Anthropic streaming actor, the tool registry
 * (built-ins confined to the workspace by default), git auto-commit and a retry timer. Agents
 * share one chart, provided once, and each runs its own actors; an agent given replacements in
 * `actors` has them supplied with `agentMachine.provide`, to a chart of its own.
 *
 * Without `permissions` the agent starts in `acceptEdits` mode: reading and editing files inside
 * the workspace run, and every `bash` command (and any other mutating tool that is not an edit)
 * waits for `approve` or `deny` — answer `approvalRequest` notifications, or the turn waits. To
 * run every tool without asking, pass `permissions: { mode: 'bypassPermissions' }`. `bash` runs
 * its commands in an OS sandbox where one can start, and unconfined where none can:
 * `agent.sandbox` says which, and a `diagnostic` at start says why.
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
  checkSessionOptions(options);
  checkAgentActors(options.actors);
  const transport = resolveLlmTransport(options.anthropic, options.transport);
  const workspace = options.workspace ?? process.cwd();
  const tools = options.tools ?? createBuiltinTools();
  // Replaced when an MCP server's tools change; the tool actor looks calls up in the current one.
  let registry = createToolRegistry(tools);
  let config = chartConfig(options, registry);
  // A bad config (a permission mode that does not exist, say) is refused here, not at the first
  // turn or as a stored session opens.
  resolveConfig(config);
  const mcp = agentMcp(options.mcpServers, workspace);
  const inFlight = new InFlightWork();
  const hub = new NotificationHub((error) => {
    // An `error` listener that throws has nowhere left to report to but the console.
    console.error('agent-statechart: an error listener threw', error);
  });
  const inspector =
    options.inspector === undefined
      ? undefined
      : attachInspector(options.inspector, (error) =>
          hub.emit('error', {
            message: `the inspector page could not start: ${errorMessage(error)}`,
            source: 'agent',
          }),
        );

  // The closure below reads locals, never `options`: it lives as long as the agent, and must not
  // keep the caller's initial messages alive.
  const messages = options.messages?.slice();
  const { actors, anthropic, autoCommit, toolTimeoutMs, retryDelayScale, inspect } = options;
  const { hooks, hookTimeoutMs } = options;
  const children: SubagentChildren = new Map();
  const inherited = inheritedOptions(options);
  const { store, sessionId, sessionMetadata, telemetry } = options;
  const traced = tracerFor(telemetry, sessionId);
  const tracer = traced?.tracer;
  const startSubagent = (input: SubagentActorInput): Agent => {
    const child = subagentOptions(inherited, input, registry.tools, workspace);
    return createAgent({
      ...child,
      ...subagentSession(input, child, { store, sessionId, sessionMetadata, tracer }),
      ...subagentTelemetry(input, tracer, telemetry, sessionId),
      ...subagentInspection(input, inspector, inspect),
    });
  };
  // Replacements are provided to a chart of the agent's own (a machine among them persists its
  // snapshots its own way); the package's own actors run behind the shared chart's stand-ins.
  const ownChart =
    actors !== undefined && Object.values(actors).some((logic) => logic !== undefined);
  // A mode the caller names wins over the one a reopened session was stored in (and is recorded
  // as the chart's own SetPermissionMode); without one, the session keeps its own.
  const askedMode = options.permissions?.mode;

  // What the start-up diagnostics say the agent started in: before any event it takes.
  let startedIn: AgentStateName = 'WaitingForUserInput';

  /** The running chart: a new one, or a stored session's, restored. */
  const start = (session?: OpenedSession): AgentParts => {
    const recorder = session?.recorder;
    if (session !== undefined && !session.created) startedIn = session.core.state;
    traced?.keep(session?.header.metadata);
    // An actor that throws instead of answering: the chart is given the event for its failure.
    const running: { chart?: Actor<AgentMachine> } = {};
    const onFailure: ActorFailureHandler = ({ actor, event, reason }) => {
      const snapshot = running.chart?.getSnapshot();
      hub.emit('diagnostic', {
        code: 'ACTOR_FAILED',
        message: `the ${actor} actor threw instead of answering the chart (${reason}); the chart was given ${event.type} in its place`,
        state: snapshot === undefined ? 'WaitingForUserInput' : topStateOf(snapshot.value),
        event,
      });
      running.chart?.send(event);
    };
    const chartActors = agentActors(actors, {
      workspace,
      registry: liveToolRegistry(() => registry),
      inFlight,
      hub,
      anthropic,
      transport,
      autoCommit,
      toolTimeoutMs,
      retryDelayScale,
      hooks,
      hookTimeoutMs,
      sessionId,
      onFailure,
      startSubagent,
      children,
      ...(recorder ? { beforeStart: (effect: EffectStart) => recorder.started(effect) } : {}),
    });
    const machine = ownChart ? agentMachine.provide({ actors: chartActors }) : sharedAgentMachine;
    // Inspection is switched on from the start only when something watches the chart; a
    // `state` or `toolEnd` listener switches it on later.
    const userInspect = inspect;
    let record: ((event: InspectionEvent) => void) | undefined;
    let notifyMicrosteps: ((event: InspectionEvent) => void) | undefined;
    let trace: ((event: InspectionEvent) => void) | undefined;
    const observe = (event: InspectionEvent) => {
      record?.(event);
      trace?.(event);
      notifyMicrosteps?.(event);
      inspector?.record(event);
      if (typeof userInspect === 'function') userInspect(event);
      else userInspect?.next?.(event);
    };
    const watched =
      userInspect !== undefined ||
      inspector !== undefined ||
      recorder !== undefined ||
      tracer !== undefined;
    const inspection = watched ? { inspect: observe } : {};
    const actor =
      session !== undefined && !session.created
        ? createActor(machine, {
            input: undefined,
            snapshot: restoreMachineSnapshot(machine, session.core.snapshot(), config),
            ...inspection,
          })
        : createActor(machine, {
            input: { config, ...(messages ? { messages } : {}) },
            ...inspection,
          });
    if (!ownChart) registerAgentActors(actor, chartActors);
    running.chart = actor;
    if (recorder !== undefined) record = recordActor(recorder, actor);
    if (tracer !== undefined) trace = traceActor(tracer, actor);
    notifyActions(actor, hub);
    return {
      actor,
      followMicrosteps: () => {
        if (notifyMicrosteps !== undefined) return;
        notifyMicrosteps = microstepNotifier(hub, actor, actor.getSnapshot());
        if (!watched) actor.system.inspect(observe);
      },
      openingEvents: openingEvents(session, askedMode),
      ...(recorder
        ? { recorded: () => recorder.log.flushed(), unrecordable: recorder.log.failed }
        : {}),
    };
  };

  const notices = startupNotices({ tools, workspace, anthropic, autoCommit, actors, messages });
  let servers: McpServers | undefined;
  let stopFollowing = (): void => undefined;
  const running: { agent?: Agent } = {};
  // The servers' tools join the agent's before its chart starts, and follow them from then on
  // (a change before the chart runs is delivered once it does).
  const connected = mcp?.servers.then((connectedServers) => {
    servers = connectedServers;
    stopFollowing = followMcpServers(connectedServers, {
      tools,
      replace: (next) => (registry = next),
      dispatch: (event) => running.agent?.dispatch(event),
      hub,
    });
    registry = connectedServers.registryWith(tools);
    config = { ...config, tools: registry.specs() };
    resolveConfig(config);
    notices.push(...mcpNotices(connectedServers.status()));
  });
  // An agent that cannot start does not keep the servers it started (their processes) alive.
  connected?.catch(async () => {
    stopFollowing();
    if (mcp?.owned) await servers?.close();
  });
  const shell = {
    hub,
    inFlight,
    inspector: inspector?.server,
    release: async () => {
      stopFollowing();
      await inspector?.release();
      if (mcp?.owned)
        await mcp.servers.then(
          (owned) => owned.close(),
          () => undefined,
        );
    },
    mcpServers: () => servers,
    sessionId,
    sandbox: sandboxOf(tools),
    children,
  };
  const announced = (agent: Agent) => {
    running.agent = agent;
    return announceAtStart(agent, hub, notices, () => startedIn);
  };
  if (store === undefined) {
    return announced(
      new Agent(shell, connected === undefined ? start() : connected.then(() => start())),
    );
  }
  // The newest agent on a session is its only writer: one that opened it earlier (another
  // process, or a stale handle) is refused at its next write and stops.
  const open = () =>
    openSession(store, sessionId!, {
      config,
      claim: true,
      ...(messages ? { messages } : {}),
      ...(sessionMetadata === undefined ? {} : { metadata: sessionMetadata }),
    });
  const opened = connected === undefined ? open() : connected.then(open);
  return announced(new Agent(shell, opened.then(start)));
}

/** What of an agent's options its subagents start from (see {@link subagentOptions}). */
type InheritedOptions = Pick<
  CreateAgentOptions,
  (typeof SUBAGENT_INHERITED_KEYS)[number] | 'permissions' | 'hooks' | 'agents' | 'maxSubagentDepth'
>;

/**
 * The options an agent's subagents start from, picked once: what they run with as their parent
 * does, its rules, its tool hooks and its agents. Nothing else of the options (the caller's
 * initial messages, a store) is kept alive by the agent for them.
 */
function inheritedOptions(options: CreateAgentOptions): InheritedOptions {
  const { preToolUse, postToolUse } = options.hooks ?? {};
  const inherited: InheritedOptions = {
    hooks: {
      ...(preToolUse === undefined ? {} : { preToolUse }),
      ...(postToolUse === undefined ? {} : { postToolUse }),
    },
  };
  for (const key of [
    ...SUBAGENT_INHERITED_KEYS,
    'permissions',
    'agents',
    'maxSubagentDepth',
  ] as const) {
    if (options[key] !== undefined) Object.assign(inherited, { [key]: options[key] });
  }
  return inherited;
}

/**
 * The options of the child agent that runs a task: the task's spec over what the parent runs
 * with, never wider than it (its tools, rules and mode; its tool hooks), and the parent's agents
 * it has the tools for, while the depth allows (`subagentScope`).
 */
function subagentOptions(
  parent: InheritedOptions,
  input: SubagentActorInput,
  tools: readonly Tool[],
  workspace: string,
): CreateAgentOptions {
  const { spec } = input;
  const { agents, maxSubagentDepth, permissions, ...rest } = parent;
  const levelsLeft = (maxSubagentDepth ?? DEFAULT_SUBAGENT_DEPTH) - 1;
  const rules = permissions ?? DEFAULT_AGENT_PERMISSIONS;
  const names = tools.map((tool) => tool.name);
  const scope = subagentScope(spec, names, agents, levelsLeft);
  const child: CreateAgentOptions = {
    ...rest,
    workspace,
    tools: tools.filter((tool) => scope.tools.includes(tool.name)),
    permissions: { ...rules, mode: input.permissionMode ?? rules.mode },
  };
  if (spec.system !== undefined) child.system = spec.system;
  if (spec.model !== undefined) child.model = spec.model;
  if (spec.maxTurns !== undefined) child.maxTurns = spec.maxTurns;
  if (scope.agents !== undefined) {
    child.agents = scope.agents;
    child.maxSubagentDepth = levelsLeft;
  }
  return child;
}

/**
 * How a subagent is watched: on its parent's inspector page, named after the path of agents down
 * to it, and by its parent's own observer.
 */
function subagentInspection(
  input: SubagentActorInput,
  inspector: AttachedInspector | undefined,
  inspect: CreateAgentOptions['inspect'],
): Pick<CreateAgentOptions, 'inspector' | 'inspect'> {
  return {
    ...(inspector === undefined
      ? {}
      : {
          inspector: {
            server: inspector.server,
            name: `${inspector.name ?? 'agent'} › ${input.task.agent}`,
          },
        }),
    ...(inspect === undefined ? {} : { inspect }),
  };
}

/** What of its parent a subagent's session is made from. */
interface SubagentSessionParent {
  store: SessionStore | undefined;
  sessionId: string | undefined;
  sessionMetadata: Record<string, unknown> | undefined;
  tracer: AgentTracer | undefined;
}

/**
 * Where a stored session's subagent stores its own: the parent's store, under the id the parent's
 * session and the task call make, with the parent's metadata, the link to it (a level below the
 * parent's, in the mode the child starts in) and, when the parent is traced, the task call's span:
 * a parent resumed in another process has no span open for the call, and the subagent's turns
 * go on under the one kept. An agent without a store keeps its subagents' sessions nowhere, as
 * its own.
 */
function subagentSession(
  input: SubagentActorInput,
  child: CreateAgentOptions,
  parent: SubagentSessionParent,
): Pick<CreateAgentOptions, 'store' | 'sessionId' | 'sessionMetadata'> {
  const { store, sessionId: parentSessionId, sessionMetadata: metadata, tracer } = parent;
  if (store === undefined || parentSessionId === undefined) return {};
  const callId = input.call.id;
  const link = childLink(parentSessionId, subagentLinkOf(metadata), {
    callId,
    agent: input.task.agent,
    mode: child.permissions?.mode,
  });
  return {
    store,
    sessionId: subagentSessionId(parentSessionId, callId),
    sessionMetadata: withTraceParent(
      { ...metadata, subagent: link },
      tracer?.toolSpanParent(callId),
    ),
  };
}

/** What a subagent runs with as its parent does, unless its spec says otherwise. */
const SUBAGENT_INHERITED_KEYS = [
  'anthropic',
  'transport',
  'model',
  'maxTokens',
  'maxRetries',
  'retry',
  'retryDelayScale',
  'request',
  'promptCache',
  'pricing',
  'maxTurns',
  'autoCommit',
  'toolTimeoutMs',
  'hookTimeoutMs',
  'toolGraceMs',
  'compaction',
  'inspect',
] as const satisfies ReadonlyArray<keyof CreateAgentOptions>;

/**
 * What a reopened session is told first: its `Resume` (work was in flight), then the permission
 * mode the caller asked for, when it differs from the stored one. (Its tools need no event: the
 * chart resumes with the config it is opened with, whatever a `SetTools` in the log replayed.)
 */
function openingEvents(
  session: OpenedSession | undefined,
  askedMode: PermissionMode | undefined,
): AgentEvent[] {
  if (session === undefined || session.created) return [];
  const events: AgentEvent[] = session.resume ? [session.resume] : [];
  if (askedMode !== undefined && session.core.context.permissionMode !== askedMode) {
    events.push({ type: 'SetPermissionMode', mode: askedMode });
  }
  return events;
}

/**
 * A traced agent's tracer, and how it is handed the header of the session as it opens: a
 * subagent's session keeps the span its turns go under when its parent has no span open for the
 * task call (see {@link keepingStoredParent}).
 */
interface TracedAgent {
  tracer: AgentTracer;
  keep: (metadata: Record<string, unknown> | undefined) => void;
}

/** The agent's tracer, when telemetry is asked for; the session names the conversation. */
function tracerFor(
  telemetry: CreateAgentOptions['telemetry'],
  sessionId: string | undefined,
): TracedAgent | undefined {
  const options = telemetryOptions(telemetry);
  if (options === undefined) return undefined;
  const { options: kept, keep } = keepingStoredParent({
    ...(sessionId === undefined ? {} : { conversationId: sessionId }),
    ...options,
  });
  return { tracer: new AgentTracer(kept), keep };
}

/**
 * How a traced agent's subagent is traced: with its parent's tracer and `recordContent`, under
 * its own name (its key in `agents`), the session it runs in (or would) as its conversation, and
 * each turn of it a child of its task call's `execute_tool task` span, in the parent's trace. An
 * agent not traced traces no subagent.
 */
function subagentTelemetry(
  input: SubagentActorInput,
  tracer: AgentTracer | undefined,
  telemetry: CreateAgentOptions['telemetry'],
  sessionId: string | undefined,
): Pick<CreateAgentOptions, 'telemetry'> {
  const parent = telemetryOptions(telemetry);
  if (tracer === undefined || parent === undefined) return {};
  const { conversationId = sessionId, agentName: _name, parentContext: _parent, ...kept } = parent;
  const callId = input.call.id;
  return {
    telemetry: {
      ...kept,
      agentName: input.task.agent,
      ...(conversationId === undefined
        ? {}
        : { conversationId: subagentSessionId(conversationId, callId) }),
      parentContext: () => tracer.toolContext(callId),
    },
  };
}

/** A store and a session id go together. */
function checkSessionOptions(options: CreateAgentOptions): void {
  const { store, sessionId } = options;
  if ((store === undefined) !== (sessionId === undefined)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'createAgent takes a store and a sessionId together: the store keeps the session, the id names it',
    );
  }
}

/**
 * The chart's part of the options, with the registry's tools. An agent that touches real files
 * starts from a safe mode: edits run, shell commands ask (pure mode keeps "no permissions, every
 * tool runs").
 */
function chartConfig(options: CreateAgentOptions, registry: ToolRegistry): AgentConfig {
  const config: AgentConfig = {
    permissions: options.permissions ?? DEFAULT_AGENT_PERMISSIONS,
    tools: registry.specs(),
    ...(options.output === undefined ? {} : { output: outputSpecOf(options.output) }),
  };
  const hooks = hookSwitches(options.hooks, options.hookTimeoutMs);
  if (hooks !== undefined) config.hooks = hooks;
  for (const key of PASSED_CONFIG_KEYS) {
    if (options[key] !== undefined) Object.assign(config, { [key]: options[key] });
  }
  return config;
}

/** The fields of the chart's config `createAgent` passes on as the caller gave them. */
const PASSED_CONFIG_KEYS = [
  'maxRetries',
  'model',
  'maxTokens',
  'system',
  'retry',
  'toolGraceMs',
  'maxTurns',
  'maxBudgetUsd',
  'pricing',
  'request',
  'promptCache',
  'askUser',
  'compaction',
  'agents',
] as const satisfies ReadonlyArray<keyof AgentConfig>;

// A field added to the chart's config and not listed above fails to compile here, rather than be
// dropped on the way to the chart: every field is passed on or set by createAgent itself.
const EVERY_CONFIG_FIELD_PASSED: [
  Exclude<
    keyof AgentConfig,
    (typeof PASSED_CONFIG_KEYS)[number] | 'permissions' | 'tools' | 'output' | 'hooks'
  >,
] extends [never]
  ? true
  : never = true;
void EVERY_CONFIG_FIELD_PASSED;

const DEFAULT_AGENT_PERMISSIONS: PermissionConfig = Object.freeze({ mode: 'acceptEdits' });
