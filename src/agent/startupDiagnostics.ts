/**
 * What `createAgent` finds at start that a service should log: said once, as `diagnostic`
 * notifications, right after the agent starts (listen before the first `await`).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ClientOptions } from '@anthropic-ai/sdk';
import { isClient, repositoryRoot, type SandboxStatus, type Tool } from '../actors/index.js';
import {
  type AgentDiagnostic,
  type AgentStateName,
  type Message,
  transcriptRepair,
} from '../machine/index.js';
import type { McpServerStatus } from '../mcp/index.js';
import type { Agent } from './agent.js';
import type { AgentActors } from './agentActors.js';
import type { NotificationHub } from './agentNotifications.js';

/**
 * The codes of what `createAgent` reports at start, telling them apart from the diagnostics of
 * events:
 * - `SANDBOX_INACTIVE`: shell commands do not run in an OS sandbox (none can start here, or it
 *   was turned off); the message says what they do instead.
 * - `NO_API_KEY`: the agent builds its Anthropic client itself and no credential is configured,
 *   so its model calls will fail as `auth` errors.
 * - `WORKSPACE_IS_PROCESS_REPOSITORY`: the workspace is in the git repository this process runs
 *   from, and the git auto-commit is on: the agent's edits will be committed to it.
 * - `TRANSCRIPT_REPAIRED`: the `messages` given to start from had `tool_use` blocks with no
 *   `tool_result`; each was answered as interrupted before the first request.
 * - `MCP_SERVER_UNAVAILABLE`: an MCP server did not connect; the message says why. It is started
 *   again with backoff, and its tools join once it answers.
 * - `MCP_TOOL_LEFT_OUT`: a tool of an MCP server is not offered to the model: its name or input
 *   schema is one the Messages API refuses (the message says which).
 *
 * @example
 * const atStart = new Set<string>(STARTUP_DIAGNOSTIC_CODES);
 * agent.on('diagnostic', ({ code, message }) => {
 *   if (atStart.has(code)) log.warn(message);
 * });
 */
export const STARTUP_DIAGNOSTIC_CODES = Object.freeze([
  'SANDBOX_INACTIVE',
  'NO_API_KEY',
  'WORKSPACE_IS_PROCESS_REPOSITORY',
  'TRANSCRIPT_REPAIRED',
  'MCP_SERVER_UNAVAILABLE',
  'MCP_TOOL_LEFT_OUT',
] as const);

/**
 * One of {@link STARTUP_DIAGNOSTIC_CODES}.
 *
 * @example
 * const code: StartupDiagnosticCode = 'SANDBOX_INACTIVE';
 */
export type StartupDiagnosticCode = (typeof STARTUP_DIAGNOSTIC_CODES)[number];

/**
 * A `diagnostic` notification about the agent as it starts, not about an event (`event` is
 * `undefined`; `state` is the state the agent started in).
 *
 * @example
 * const diagnostic: StartupDiagnostic = {
 *   code: 'SANDBOX_INACTIVE',
 *   message: 'bash runs without a sandbox: …',
 *   state: 'WaitingForUserInput',
 *   event: undefined,
 * };
 */
export interface StartupDiagnostic extends Omit<AgentDiagnostic, 'code'> {
  code: StartupDiagnosticCode;
}

/** One finding, before the agent's state is known. */
interface StartupNotice {
  code: StartupDiagnosticCode;
  message: string;
}

/**
 * The sandbox of the agent's shell: that of its first tool that runs shell commands, or
 * `undefined` when none does.
 *
 * @example
 * sandboxOf(createBuiltinTools()); // { active: true } where bubblewrap works
 */
export function sandboxOf(tools: readonly Tool[]): SandboxStatus | undefined {
  return tools.find((tool) => tool.sandbox !== undefined)?.sandbox;
}

/**
 * The parts of `createAgent`'s options its start-up checks read.
 *
 * @example
 * const settings: StartupSettings = {
 *   tools,
 *   workspace: '/srv/agent-workspace',
 *   anthropic: undefined,
 *   autoCommit: undefined,
 *   actors: undefined,
 * };
 */
export interface StartupSettings {
  tools: readonly Tool[];
  workspace: string;
  anthropic: Anthropic | ClientOptions | undefined;
  autoCommit: boolean | undefined;
  actors: AgentActors | undefined;
  /** The transcript the agent starts from, when it was given one. */
  messages?: readonly Message[] | undefined;
}

/**
 * What the agent's own parts say about themselves at start.
 *
 * @example
 * const notices = startupNotices({ tools, workspace, anthropic, autoCommit, actors });
 */
export function startupNotices(
  settings: StartupSettings,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): StartupNotice[] {
  return [
    ...sandboxNotices(settings.tools),
    ...repositoryNotices(settings, cwd),
    ...credentialNotices(settings, env),
    ...transcriptNotices(settings.messages),
  ];
}

function transcriptNotices(messages: readonly Message[] | undefined): StartupNotice[] {
  const repair = messages === undefined ? null : transcriptRepair(messages);
  return repair === null ? [] : [{ code: 'TRANSCRIPT_REPAIRED', message: repair }];
}

/**
 * Tells the agent's `diagnostic` listeners what was found, once the agent runs (its session
 * opened; a microtask later at the soonest, so listeners added right after `createAgent` hear it),
 * and returns the agent. Each names `startedIn()`, the state the agent started in, whatever it
 * took meanwhile. An agent whose session could not be opened never runs: its `error` says why.
 *
 * @example
 * return announceAtStart(new Agent(shell, start()), hub, notices, () => 'WaitingForUserInput');
 */
export function announceAtStart(
  agent: Agent,
  hub: NotificationHub,
  notices: readonly StartupNotice[],
  startedIn: () => AgentStateName,
): Agent {
  // Read once the agent is ready: its MCP servers add theirs as they connect.
  agent.ready.then(
    () => {
      const state = startedIn();
      for (const notice of notices) hub.emit('diagnostic', { ...notice, state, event: undefined });
    },
    () => undefined,
  );
  return agent;
}

/**
 * What the MCP servers say at start: each that did not connect, and each tool left out.
 *
 * @example
 * notices.push(...mcpNotices(servers.status()));
 */
export function mcpNotices(status: readonly McpServerStatus[]): StartupNotice[] {
  return status.flatMap((server) => [
    ...(server.state === 'connected'
      ? []
      : [
          {
            code: 'MCP_SERVER_UNAVAILABLE' as const,
            message: `the MCP server '${server.name}' is not connected: ${server.error ?? server.state}; its tools join once it answers`,
          },
        ]),
    ...server.problems.map((message) => ({ code: 'MCP_TOOL_LEFT_OUT' as const, message })),
  ]);
}

function sandboxNotices(tools: readonly Tool[]): StartupNotice[] {
  return tools.flatMap((tool) =>
    tool.sandbox === undefined || tool.sandbox.active
      ? []
      : [{ code: 'SANDBOX_INACTIVE', message: sandboxMessage(tool.name, tool.sandbox) }],
  );
}

function sandboxMessage(name: string, sandbox: SandboxStatus & { active: false }): string {
  if (sandbox.commands === 'refused') {
    return `${name} refuses every command: it runs commands only in a sandbox (sandbox: 'required'), and none can start here (${sandbox.reason})`;
  }
  return `${name} runs commands without a sandbox, with the agent's own rights: ${sandbox.reason}. In bypassPermissions mode they run without asking (each result says it ran unconfined); in the other modes each asks first, as any shell command does.`;
}

/** The agent's own auto-commit would commit into the repository of the process that runs it. */
function repositoryNotices(settings: StartupSettings, cwd: string): StartupNotice[] {
  const { workspace, autoCommit, actors } = settings;
  // On unless turned off, or replaced by a hook of the caller's.
  if (autoCommit === false || actors?.postToolsHook !== undefined) return [];
  const root = repositoryRoot(workspace);
  if (root === null || root !== repositoryRoot(cwd)) return [];
  return [
    {
      code: 'WORKSPACE_IS_PROCESS_REPOSITORY',
      message: `the workspace ${workspace} is in the git repository this process runs from (${root}), and auto-commit is on: the agent's edits will be committed to it. Give the agent a workspace of its own, or pass autoCommit: false`,
    },
  ];
}

/** A client the agent builds itself (no `llm` actor of the caller's) with nothing to send. */
function credentialNotices(settings: StartupSettings, env: NodeJS.ProcessEnv): StartupNotice[] {
  if (settings.actors?.llm !== undefined || hasCredential(settings.anthropic, env)) return [];
  return [
    {
      code: 'NO_API_KEY',
      message:
        'no Anthropic API key is configured (no apiKey or authToken in the anthropic option, no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in the environment), so model calls will fail as auth errors unless the SDK finds a credentials profile',
    },
  ];
}

/** The client options' credentials, any of which the SDK sends instead of an API key. */
const CREDENTIAL_OPTIONS = ['apiKey', 'authToken', 'credentials', 'config', 'profile'] as const;

/**
 * The variables the SDK reads a credential or a profile from. A profile saved on disk is out of
 * sight here: the message says so.
 */
const CREDENTIAL_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_PROFILE',
  'ANTHROPIC_IDENTITY_TOKEN',
  'ANTHROPIC_IDENTITY_TOKEN_FILE',
];

/** Whether the client the agent uses has a credential to send, as far as can be seen at start. */
function hasCredential(
  anthropic: Anthropic | ClientOptions | undefined,
  env: NodeJS.ProcessEnv,
): boolean {
  // A client of the caller's (Bedrock and Vertex ones included), or headers of their own, may
  // authenticate in ways not seen here.
  if (isClient(anthropic) || anthropic?.defaultHeaders !== undefined) return true;
  if (CREDENTIAL_OPTIONS.some((name) => anthropic?.[name] != null)) return true;
  return CREDENTIAL_VARIABLES.some((name) => (env[name] ?? '') !== '');
}
