/**
 * `agent-statechart run`: an interactive terminal agent. It talks to Claude when
 * `ANTHROPIC_API_KEY` is set and to the offline scripted model otherwise; it streams text, shows
 * tool calls with their status and the current state, asks before tools that need approval, and
 * puts the model's own questions (the `ask_user` tool) to the user, one at a time, with numbered
 * choices. Piped input works too: each line is a message, and an approval or a question takes
 * the next line as its answer.
 *
 * Ctrl-C interrupts a running turn; at an approval or a question it also withdraws the question
 * (the call is answered as interrupted), so the next line typed is a message again, not an
 * answer. At the idle prompt it says how to quit, and a second Ctrl-C there quits. Input that
 * ends at a question leaves the question open: a stored session asks it again when resumed.
 *
 * `--hooks MODULE` runs the user's own hooks (see `loadHooksModule`); a prompt the
 * `userPromptSubmit` hook blocks is shown as not sent, and the next line is a message again.
 *
 * `--agents FILE` gives the model subagents (see `readAgentsFile`): its `task` tool hands them
 * sub-tasks, their tool calls are shown under the agent's name, and their calls that need
 * approval are asked like the agent's own.
 *
 * `/compact [instructions]` compacts the conversation between turns (the model summarises all but
 * the latest messages, keeping what the instructions add); Ctrl-C during it interrupts it, and
 * the conversation stays as it was. A long session also compacts on its own before a request
 * that would fill too much of the context window; both are shown as they happen.
 */
import { resolve } from 'node:path';
import { type Agent, createAgent, type SubagentRef } from '../agent/index.js';
import { resolveWorkspaceRoot } from '../actors/index.js';
import {
  AgentStatechartError,
  atRest,
  errorMessage,
  PERMISSION_MODES,
  type PermissionMode,
  type QuestionsAsked,
  type SubagentSpec,
  type ToolCall,
  topStateOf,
  type UserAnswers,
} from '../machine/index.js';
import { checkSessionId, type SessionStore, subagentLinkOf } from '../persistence/index.js';
import { startMessagesApiServer } from '../testing/index.js';
import { describeMcpServers, readMcpConfig } from './mcpConfigFile.js';
import { type LineRead, LineReader } from './lineReader.js';
import { describeResume, type ObservedResume, watchResume } from './describeResume.js';
import { offlineModel } from './offlineModel.js';
import { startCliTracing } from './cliTracing.js';
import { parseFlags } from './parseFlags.js';
import { answerOfLine, showQuestion } from './questionPrompt.js';
import {
  cliSessionMetadata,
  hookNames,
  sessionAgents,
  sessionAsksUser,
  sessionHooks,
  type SessionLimits,
  sessionLimits,
  sessionModel,
} from './sessionConfig.js';
import { checkResumedSessionAgents, type GivenAgents, readAgentsFile } from './agentsFile.js';
import { type HooksModule, loadHooksModule } from './hooksModule.js';
import { checkResumedSessionHooks } from './resumedSessionHooks.js';
import { checkResumedSessionLimits } from './resumedSessionLimits.js';
import { describeUsage } from './describeSession.js';
import { describeCompacted, showProgress } from './showProgress.js';
import { openSessionStore } from './workspaceSessionStore.js';

const MODES: readonly PermissionMode[] = PERMISSION_MODES;

/** The mode of a new session, or of a run without one, when `--mode` names none. */
const DEFAULT_RUN_MODE: PermissionMode = 'default';

/** What each mode lets through, for the confirmation of `/mode`. */
const MODE_MEANINGS: Record<PermissionMode, string> = {
  plan: 'read-only: tools that change files or run commands are refused',
  default: 'tools that change files or run commands ask first',
  acceptEdits: 'file edits run without asking; commands ask first',
  bypassPermissions: 'every tool runs without asking',
};

/** The label of the offline scripted model's replies (Claude's are labelled `claude`). */
export const OFFLINE_MODEL_LABEL = 'offline model';

/**
 * Where `run` reads and writes (the terminal by default; tests pass streams).
 *
 * @example
 * await runCommand(['--workspace', '.'], { input: process.stdin, output: process.stdout, env: process.env });
 */
export interface RunIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/**
 * `run`'s options: `--workspace DIR`, `--mode MODE`, `--model NAME`, `--session NAME` (keep the
 * session in a store, resuming it when it exists), `--store PATH` (the store's file),
 * `--max-turns N` and `--max-budget USD` (the chart's limits), `--mcp-config FILE` (MCP servers,
 * as in `.mcp.json`), `--hooks MODULE` and `--hook-timeout MS` (the user's hooks), `--agents FILE`
 * (subagents) and `--otel` (trace the agent).
 *
 * @example
 * const options: RunOptions = { workspace: process.cwd(), mode: 'default', session: 'fix-tests', hooks: './hooks.mjs' };
 */
export interface RunOptions {
  workspace: string;
  /**
   * The permission mode `--mode` names. Without it a new session (or a run without one) starts in
   * `default`, and a resumed session keeps the mode it was stored in.
   */
  mode?: PermissionMode;
  model?: string;
  session?: string;
  store?: string;
  /**
   * `--max-turns N`: model calls a turn may make (the chart's `maxTurns`). A session records it,
   * and a resumed one runs with its own (another value is refused).
   */
  maxTurns?: number;
  /**
   * `--max-budget USD`: what the session may spend (the chart's `maxBudgetUsd`); recorded, and
   * kept on resume, as `maxTurns` is.
   */
  maxBudgetUsd?: number;
  /** `--otel`: trace the agent (see `startCliTracing`). */
  otel?: boolean;
  /** `--mcp-config FILE`: the file of MCP servers the agent takes tools from. */
  mcpConfig?: string;
  /**
   * `--hooks MODULE`: a `.js`/`.mjs` module (`.ts` under tsx), relative to the current
   * directory, whose `hooks` or default export is the agent's hooks.
   */
  hooks?: string;
  /** `--hook-timeout MS`: how long one hook may take (the agent's `hookTimeoutMs`). */
  hookTimeoutMs?: number;
  /**
   * `--agents FILE`: a JSON file, relative to the current directory, of subagent specs by name
   * (`createAgent`'s `agents`).
   */
  agents?: string;
}

/**
 * Parses `run`'s options.
 *
 * @example
 * parseRunOptions(['--mode', 'plan']); // { workspace: process.cwd(), mode: 'plan' }
 */
export function parseRunOptions(argv: string[]): RunOptions {
  const { values, switches, positional } = parseFlags(
    argv,
    'run',
    [
      '--workspace',
      '--mode',
      '--model',
      '--session',
      '--store',
      '--max-turns',
      '--max-budget',
      '--mcp-config',
      '--hooks',
      '--hook-timeout',
      '--agents',
    ],
    ['--otel'],
  );
  if (positional.length > 0) {
    throw new Error(`run takes only options; got '${positional[0]}'`);
  }
  const mode = values.get('--mode');
  if (mode !== undefined && !(MODES as string[]).includes(mode)) {
    throw new Error(`--mode must be one of ${MODES.join(', ')}; got '${mode}'`);
  }
  const options: RunOptions = { workspace: resolve(values.get('--workspace') ?? process.cwd()) };
  if (mode !== undefined) options.mode = mode as PermissionMode;
  for (const [flag, key] of [
    ['--model', 'model'],
    ['--session', 'session'],
    ['--store', 'store'],
    ['--mcp-config', 'mcpConfig'],
    ['--hooks', 'hooks'],
    ['--agents', 'agents'],
  ] as const) {
    const value = values.get(flag);
    if (value !== undefined) options[key] = value;
  }
  const maxTurns = countOption('--max-turns', values.get('--max-turns'), 'model calls');
  if (maxTurns !== undefined) options.maxTurns = maxTurns;
  const maxBudget = values.get('--max-budget');
  if (maxBudget !== undefined) {
    const usd = Number(maxBudget);
    if (maxBudget.trim() === '' || !Number.isFinite(usd) || usd <= 0) {
      throw new Error(`--max-budget must be an amount of US dollars above 0; got '${maxBudget}'`);
    }
    options.maxBudgetUsd = usd;
  }
  const hookTimeout = countOption('--hook-timeout', values.get('--hook-timeout'), 'milliseconds');
  if (hookTimeout !== undefined) options.hookTimeoutMs = hookTimeout;
  if (switches.has('--otel')) options.otel = true;
  if (options.hookTimeoutMs !== undefined && options.hooks === undefined) {
    throw new Error(
      '--hook-timeout says how long each --hooks hook may take; give --hooks MODULE too',
    );
  }
  if (options.store !== undefined && options.session === undefined) {
    throw new Error('--store names where --session keeps its session; give --session NAME too');
  }
  if (options.session !== undefined) checkSessionId(options.session);
  return options;
}

/** A flag's value as a whole number of `unit`, 1 or more; `undefined` when the flag is not given. */
function countOption(flag: string, value: string | undefined, unit: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value)) {
    throw new Error(`${flag} must be a whole number of ${unit}, 1 or more; got '${value}'`);
  }
  return Number(value);
}

/**
 * Runs the interactive agent until the input ends, the user types `/quit`, or presses Ctrl-C
 * twice at the prompt. A workspace that is not an existing directory is refused before anything
 * starts.
 *
 * @example
 * process.exitCode = await runCommand(process.argv.slice(3));
 */
export async function runCommand(
  argv: string[],
  io: RunIo = { input: process.stdin, output: process.stdout, env: process.env },
): Promise<number> {
  const options = parseRunOptions(argv);
  await resolveWorkspaceRoot(options.workspace);
  // Relative to where the command runs, as a path typed in a shell is (not to the workspace).
  const hooks =
    options.hooks === undefined
      ? undefined
      : await loadHooksModule(options.hooks, process.cwd(), options.hookTimeoutMs);
  const mcpServers =
    options.mcpConfig === undefined ? undefined : await readMcpConfig(options.mcpConfig, io.env);
  const given: GivenAgents | undefined =
    options.agents === undefined
      ? undefined
      : { file: options.agents, agents: await readAgentsFile(options.agents) };
  const write = (text: string) => io.output.write(text);
  const offline = !io.env.ANTHROPIC_API_KEY;
  const session =
    options.session === undefined ? undefined : await openRunSession(options, hooks, given);
  // A resumed session runs with the agents and limits it records (others were refused above).
  const agents = session?.existed ? session.agents : given?.agents;
  const limits = session?.existed ? session.limits : givenLimits(options);
  // A model given on the command line wins; a resumed session otherwise keeps its own, whose
  // price its budget needs.
  const model = options.model || session?.model;
  const server = offline ? await startMessagesApiServer({ script: offlineModel }) : null;
  const resumed = watchResume();
  const tracing = options.otel ? await startCliTracing(io.env, write) : undefined;
  // A mode given on the command line wins; a resumed session otherwise keeps its own.
  const mode = options.mode ?? (session?.existed ? undefined : DEFAULT_RUN_MODE);
  // Someone is at the terminal to answer the model's questions. A session created before `run`
  // offered the question tool goes on without it: its log is read back with the chart it had.
  const askUser = session?.askUser ?? true;
  const agent = createAgent({
    workspace: options.workspace,
    askUser,
    ...(mode === undefined ? {} : { permissions: { mode } }),
    ...(model ? { model } : {}),
    ...limits,
    ...(tracing ? { telemetry: { tracer: tracing.tracer } } : {}),
    ...(mcpServers === undefined ? {} : { mcpServers }),
    ...(agents === undefined ? {} : { agents }),
    ...(hooks === undefined
      ? {}
      : {
          hooks: hooks.hooks,
          ...(options.hookTimeoutMs === undefined ? {} : { hookTimeoutMs: options.hookTimeoutMs }),
        }),
    anthropic: server
      ? { baseURL: server.baseURL, apiKey: 'offline' }
      : {
          apiKey: io.env.ANTHROPIC_API_KEY,
          ...(io.env.ANTHROPIC_BASE_URL ? { baseURL: io.env.ANTHROPIC_BASE_URL } : {}),
        },
    ...(session
      ? {
          store: session.store,
          sessionId: session.id,
          // Stored with a new session; a resumed one's subagents store theirs with it too.
          sessionMetadata: cliSessionMetadata(options.workspace, mode ?? DEFAULT_RUN_MODE, {
            askUser,
            ...(hooks === undefined ? {} : { hooks: hooks.switches }),
            ...(agents === undefined ? {} : { agents }),
            ...limits,
            ...(model ? { model } : {}),
          }),
          inspect: resumed.observer,
        }
      : {}),
  });
  // Listening before the session opens: a resumed session asks again for pending approvals and
  // for the answers to open questions.
  const waiting: Waiting[] = [];
  let wake: () => void = () => undefined;
  // A subagent's calls wait for approval here too, named with the path of agents down to it.
  agent.on('approvalRequest', ({ call, subagent }) => {
    waiting.push({ kind: 'approval', call, ...(subagent === undefined ? {} : { subagent }) });
    wake();
  });
  agent.on('question', (asked) => {
    waiting.push({ kind: 'question', asked });
    wake();
  });
  agent.on('state', () => wake());
  // An interrupted call reports how it ended after the turn did: the prompt waits for it.
  agent.on('toolEnd', () => wake());
  // The chart says when it is idle again, also where no top-level state changed (a prompt the
  // userPromptSubmit hook blocked never left WaitingForUserInput).
  agent.on('action', (action) => {
    if (action.type === 'WaitForInput') wake();
  });
  const opened = await agent.ready.then(
    () => true,
    () => false,
  );
  if (!opened) {
    await agent.ready.catch((error: unknown) => write(`${errorMessage(error)}\n`));
    await server?.close();
    await session?.store.close();
    await tracing?.shutdown();
    return 1;
  }
  write(
    `agent-statechart · workspace ${options.workspace} · mode ${agent.context.permissionMode} · ${
      offline ? 'offline scripted model (no ANTHROPIC_API_KEY)' : 'Claude API'
    }\n`,
  );
  if (tracing !== undefined) write(`OpenTelemetry spans: ${tracing.destination}\n`);
  if (hooks !== undefined) write(describeHooks(hooks));
  if (agents !== undefined) write(describeAgents(agents, given, session));
  if (session !== undefined) write(describeRunSession(agent, session, resumed.result()));
  // From here on: what the resume restarted is described above, the rest is shown as it happens.
  showProgress(agent, offline ? OFFLINE_MODEL_LABEL : 'claude', write);
  write(
    `type a message; /mode <mode>, /compact [instructions], ${mcpServers === undefined ? '' : '/mcp, '}/quit; Ctrl-C interrupts a turn, twice at the prompt quits\n`,
  );

  const reader = new LineReader(io.input);
  // What the user is being asked right now decides what Ctrl-C means.
  let asking: 'message' | 'approval' | 'question' | 'nothing' = 'nothing';
  // A compaction `/compact` asked for runs while the chart waits for input: Ctrl-C interrupts it.
  let compacting = false;
  let quitOnCtrlC = false;
  const ask = async (
    prompt: string,
    what: 'message' | 'approval' | 'question',
  ): Promise<LineRead> => {
    write(prompt);
    asking = what;
    try {
      return await reader.read();
    } finally {
      asking = 'nothing';
    }
  };
  const onCtrlC = () => {
    if (asking === 'message') {
      if (quitOnCtrlC) {
        write('\n');
        reader.cancel();
      } else {
        write('\n(to quit, press Ctrl-C again or type /quit)\nyou> ');
      }
      quitOnCtrlC = true;
      return;
    }
    if (asking === 'approval' || asking === 'question') reader.cancel();
    if (agent.state !== 'WaitingForUserInput' || compacting) {
      write('\n  interrupted by Ctrl-C\n');
      agent.interrupt();
    }
  };
  process.on('SIGINT', onCtrlC);

  // Approval requests and state changes wake the turn loop, which answers or returns.
  const changed = () =>
    new Promise<void>((resolveChange) => {
      wake = resolveChange;
    });
  const prompts: Prompts = {
    approval: (call, subagent) =>
      ask(
        `allow ${subagentPrefix(subagent)}${call.name} ${JSON.stringify(call.input)}? [y]es / [n]o [why] / [a]lways `,
        'approval',
      ),
    question: (text) => ask(text, 'question'),
    write,
  };
  try {
    // A resumed session may be in the middle of a turn: it finishes before the prompt.
    if ((await untilIdleAnswering(agent, waiting, prompts, changed)) === 'ended') return 0;
    for (;;) {
      const read = await ask('\nyou> ', 'message');
      if (read.kind !== 'line') break;
      quitOnCtrlC = false;
      const line = read.text.trim();
      if (line === '/quit') break;
      if (line === '') continue;
      if (line === '/mcp') {
        write(describeMcpServers(agent.mcpServers()));
        continue;
      }
      const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(line);
      if (compact !== null) {
        compacting = true;
        try {
          write(`${await compactNow(agent, compact[1]?.trim() || undefined)}\n`);
        } finally {
          compacting = false;
        }
        continue;
      }
      const mode = /^\/mode(?:\s+(\S+))?$/.exec(line);
      if (mode !== null) {
        write(`${changeMode(agent, mode[1])}\n`);
        continue;
      }
      agent.send(read.text);
      if ((await untilIdleAnswering(agent, waiting, prompts, changed)) === 'ended') break;
      write(describeTurnUsage(agent));
    }
  } finally {
    process.off('SIGINT', onCtrlC);
    reader.close();
    // A stored session stays open: `run --session` with the same name goes on from here.
    await agent.shutdown();
    await server?.close();
    await session?.store.close();
    await tracing?.shutdown();
  }
  return 0;
}

/** Which hooks run, and from where. */
function describeHooks(hooks: HooksModule): string {
  const names = hookNames(hooks.switches);
  return `hooks from ${hooks.module}: ${names.length === 0 ? 'none (it exports no hook functions)' : names.join(', ')}\n`;
}

/** Which subagents the `task` tool hands sub-tasks to, and from where. */
function describeAgents(
  agents: Record<string, SubagentSpec>,
  given: GivenAgents | undefined,
  session: RunSession | undefined,
): string {
  const from = given === undefined ? `of session ${session?.id}` : `from ${given.file}`;
  return `agents ${from}: ${Object.keys(agents).join(', ')} (the task tool hands them sub-tasks)\n`;
}

/** `researcher › ` for a call of subagent `researcher`; nothing for the agent's own. */
function subagentPrefix(path: readonly SubagentRef[] | undefined): string {
  return path === undefined || path.length === 0
    ? ''
    : `${path.map((ref) => ref.agent).join(' › ')} › `;
}

/**
 * The session `run --session` keeps: its store, whether it existed before, whether its model
 * may ask the user questions (a new one may; one created before `run` offered the tool may not),
 * and the agents, limits and model a resumed one records.
 */
interface RunSession {
  id: string;
  store: SessionStore;
  path: string;
  existed: boolean;
  askUser: boolean;
  agents: Record<string, SubagentSpec> | undefined;
  limits: SessionLimits;
  model: string | undefined;
}

/** The limits `--max-turns` and `--max-budget` give, only those given. */
function givenLimits(options: RunOptions): SessionLimits {
  return {
    ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
  };
}

/**
 * Opens the store and reads how the session was created, if it was. A subagent's session, or a
 * session resumed with other hooks, agents or limits than it records, is refused here, before
 * anything starts (and the store is closed again).
 */
async function openRunSession(
  options: RunOptions,
  hooks: HooksModule | undefined,
  given: GivenAgents | undefined,
): Promise<RunSession> {
  const id = options.session!;
  const { store, path } = openSessionStore(options);
  try {
    // Its header says how it was created; the agent opens it again from the store.
    const header = (await store.load(id))?.header;
    const existed = header !== undefined;
    const link = subagentLinkOf(header?.metadata);
    if (link !== undefined) {
      // It goes on only as its parent's task: resuming the parent resumes it.
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `session ${id} is a subagent's session (agent ${link.agent}, task call ${link.callId} of session ${link.parentSessionId}); resume ${link.parentSessionId} instead`,
      );
    }
    const agents = existed ? sessionAgents(header.metadata) : undefined;
    const limits = existed ? sessionLimits(header.metadata) : {};
    if (existed) {
      checkResumedSessionHooks(id, sessionHooks(header.metadata), hooks);
      checkResumedSessionAgents(id, agents, given);
      checkResumedSessionLimits(id, limits, givenLimits(options));
    }
    return {
      id,
      store,
      path,
      existed,
      askUser: !existed || sessionAsksUser(header.metadata),
      agents,
      limits,
      model: existed ? sessionModel(header.metadata) : undefined,
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** What the session is: new, or resumed — and then what the resume did. */
function describeRunSession(
  agent: Agent,
  session: RunSession,
  resumed: ObservedResume | undefined,
): string {
  if (!session.existed) return `session ${session.id} · new, stored in ${session.path}\n`;
  const count = agent.context.messages.length;
  const lines = [
    `session ${session.id} · resumed from ${session.path} · ${count} message${count === 1 ? '' : 's'}`,
  ];
  // Given or not on this command line, these are the limits it goes on with.
  const { maxTurns, maxBudgetUsd } = session.limits;
  const limits = [
    ...(maxTurns === undefined ? [] : [`--max-turns ${maxTurns}`]),
    ...(maxBudgetUsd === undefined ? [] : [`--max-budget ${maxBudgetUsd}`]),
  ];
  if (limits.length > 0) lines.push(`  it runs with its own ${limits.join(' and ')}`);
  if (resumed === undefined) {
    lines.push('  it was at rest: nothing was in flight');
  } else {
    lines.push(`  it stopped in ${topStateOf(resumed.before.value)}; resuming it:`);
    for (const item of describeResume(resumed))
      lines.push(`  ${item.kind.padEnd(12)} ${item.text}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What the turn's model calls used and cost, and the session so far. */
function describeTurnUsage(agent: Agent): string {
  const { turn, session } = agent.usage;
  if (turn.calls === 0) return '';
  const spent = session.costUsd === null ? '' : ` · session $${session.costUsd.toFixed(4)}`;
  return `  Σ ${describeUsage(turn)}${spent}\n`;
}

/** Compacts the conversation now, as `/compact` asked, and says how that went. */
async function compactNow(agent: Agent, instructions: string | undefined): Promise<string> {
  try {
    const outcome = await agent.compact(instructions);
    if (outcome.status === 'skipped') return `  not compacted: ${outcome.reason}`;
    return describeCompacted(outcome.summarised, outcome.kept);
  } catch (error) {
    return `  not compacted: ${errorMessage(error)}`;
  }
}

/** Sets the permission mode `/mode` named and says what it now is. */
function changeMode(agent: Agent, requested: string | undefined): string {
  if (requested === undefined || !(MODES as string[]).includes(requested)) {
    return `modes: ${MODES.join(', ')} (now ${agent.context.permissionMode})`;
  }
  agent.setPermissionMode(requested as PermissionMode);
  const mode = agent.context.permissionMode;
  return mode === requested
    ? `mode ${mode}: ${MODE_MEANINGS[mode]}`
    : `the mode could not be changed now; it is still ${mode}`;
}

/**
 * What waits for the person at the terminal: a call's approval (a subagent's, with the path of
 * agents down to it), or the model's questions.
 */
type Waiting =
  | { kind: 'approval'; call: ToolCall; subagent?: SubagentRef[] }
  | { kind: 'question'; asked: QuestionsAsked };

/** How the turn loop asks: an approval, one line of a question, and what it prints. */
interface Prompts {
  approval: (call: ToolCall, subagent: readonly SubagentRef[] | undefined) => Promise<LineRead>;
  question: (prompt: string) => Promise<LineRead>;
  write: (text: string) => void;
}

/**
 * Waits for the turn to end, and for every call it interrupted to report how it ended, asking
 * the user about each tool call that needs approval and each question the model asks. A
 * cancelled question (Ctrl-C, which also interrupts the turn) withdraws the others too: the
 * interrupt answers every open call. Returns `ended` when the input ended at a question, which
 * stays open (the caller quits).
 */
async function untilIdleAnswering(
  agent: Agent,
  waiting: Waiting[],
  prompts: Prompts,
  changed: () => Promise<void>,
): Promise<'idle' | 'ended'> {
  for (;;) {
    const next = waiting.shift();
    if (next?.kind === 'approval') {
      // A question the agent no longer asks (a mode change, or another answer, let the call run
      // or refused it) is not put to the user.
      if (!agent.awaitsApproval(next.call.id)) continue;
      const read = await prompts.approval(next.call, next.subagent);
      if (read.kind === 'cancelled') {
        waiting.length = 0;
        continue;
      }
      answerApproval(agent, next.call, read.kind === 'line' ? read.text.trim() : '');
      continue;
    }
    if (next?.kind === 'question') {
      // Asked again (a resume) or settled meanwhile (an interrupt): asked once, while open.
      const open = agent.questions().some((asked) => asked.callId === next.asked.callId);
      if (!open) continue;
      const answered = await askQuestions(next.asked, prompts);
      if (answered === 'cancelled') {
        waiting.length = 0;
        continue;
      }
      if (answered === 'ended') return 'ended';
      agent.answer(next.asked.callId, answered);
      continue;
    }
    if (agent.state === 'ShuttingDown' || atRest(agent.state, agent.context)) return 'idle';
    await changed();
  }
}

/** Approves or refuses a call from the line typed: y, a(lways), or n with an optional reason. */
function answerApproval(agent: Agent, call: ToolCall, line: string): void {
  const answer = line.toLowerCase();
  // "n" followed by words: the refusal with a reason the model reads ("n use notes.md").
  const reason = /^no?\s+(.+)$/i.exec(line)?.[1];
  if (answer === 'y' || answer === 'yes') agent.approve(call.id);
  else if (answer === 'a' || answer === 'always') agent.approve(call.id, { remember: true });
  else if (reason !== undefined) agent.deny(call.id, { reason });
  else agent.deny(call.id);
}

/**
 * Puts an `ask_user` call's questions to the user one at a time and reads a line for each (a
 * line that picks no choice is asked again); `cancelled` on Ctrl-C, `ended` when the input ends.
 */
async function askQuestions(
  asked: QuestionsAsked,
  prompts: Prompts,
): Promise<UserAnswers | 'cancelled' | 'ended'> {
  const answers: UserAnswers = [];
  const count = asked.questions.length;
  for (const [index, question] of asked.questions.entries()) {
    prompts.write(showQuestion(question, { index, count }));
    for (;;) {
      const read = await prompts.question('answer> ');
      if (read.kind === 'end') return 'ended';
      if (read.kind === 'cancelled') return 'cancelled';
      const answer = answerOfLine(question, read.text);
      if ('answer' in answer) {
        answers.push(answer.answer);
        break;
      }
      prompts.write(`  (${answer.problem})\n`);
    }
  }
  return answers;
}
