/** A real agent against the local Messages API server, in a temporary git workspace. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';
import {
  type Agent,
  type AgentNotifications,
  type AgentStateName,
  type CreateAgentOptions,
  createAgent,
  STARTUP_DIAGNOSTIC_CODES,
  type StartupDiagnostic,
} from '../../src/index.js';
import {
  type MessagesApiServer,
  type Script,
  startMessagesApiServer,
} from '../../src/testing/index.js';

const run = promisify(execFile);

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd });
  return stdout.trim();
}

export async function gitWorkspace(files: Record<string, string> = {}): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-e2e-'));
  await git(directory, 'init', '-q');
  await git(directory, 'config', 'user.name', 'Test');
  await git(directory, 'config', 'user.email', 'test@example.com');
  for (const [name, content] of Object.entries(files))
    await writeFile(join(directory, name), content);
  if (Object.keys(files).length > 0) {
    await git(directory, 'add', '-A');
    await git(directory, 'commit', '-qm', 'initial');
  }
  return directory;
}

export interface Session {
  agent: Agent;
  server: MessagesApiServer;
  workspace: string;
  states: AgentStateName[];
  /** Every notification, by name; `diagnostic` without those of the agent's start. */
  notes: { [Name in keyof AgentNotifications]: AgentNotifications[Name][] };
  /** The `diagnostic`s of the agent's start (no sandbox on this machine, …). */
  startup: StartupDiagnostic[];
  close(): Promise<void>;
}

export async function startSession(
  script: Script,
  options: CreateAgentOptions & { files?: Record<string, string>; eventDelayMs?: number } = {},
): Promise<Session> {
  const { files, eventDelayMs, ...agentOptions } = options;
  const workspace = agentOptions.workspace ?? (await gitWorkspace(files));
  const server = await startMessagesApiServer({ script, eventDelayMs: eventDelayMs ?? 0 });
  const agent = createAgent({
    retryDelayScale: 0.01,
    ...agentOptions,
    workspace,
    anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
  });
  const notes = {
    llmStart: [],
    text: [],
    llmEnd: [],
    usage: [],
    toolStart: [],
    toolEnd: [],
    mcp: [],
    approvalRequest: [],
    question: [],
    promptDropped: [],
    output: [],
    compacting: [],
    compacted: [],
    compactionSkipped: [],
    subagent: [],
    state: [],
    retry: [],
    error: [],
    commit: [],
    diagnostic: [],
    action: [],
  } as Session['notes'];
  const startup: StartupDiagnostic[] = [];
  const record = <Name extends keyof AgentNotifications>(name: Name) =>
    agent.on(name, (payload) => {
      notes[name].push(payload);
    });
  for (const name of Object.keys(notes) as (keyof AgentNotifications)[]) {
    if (name !== 'diagnostic') record(name);
  }
  // What the agent says of itself at start depends on the machine (a sandbox, or none): tests
  // of what events cause read it apart.
  agent.on('diagnostic', (diagnostic) => {
    if (isStartupDiagnostic(diagnostic)) startup.push(diagnostic);
    else notes.diagnostic.push(diagnostic);
  });
  const states: AgentStateName[] = [agent.state];
  agent.on('state', ({ state }) => states.push(state));
  return {
    agent,
    server,
    workspace,
    states,
    notes,
    startup,
    async close() {
      await agent.shutdown({ timeoutMs: 2_000 });
      await server.close();
      if (agentOptions.workspace === undefined)
        await rm(workspace, { recursive: true, force: true });
    },
  };
}

function isStartupDiagnostic(
  diagnostic: AgentNotifications['diagnostic'],
): diagnostic is StartupDiagnostic {
  return (STARTUP_DIAGNOSTIC_CODES as readonly string[]).includes(diagnostic.code);
}

/**
 * `startSession` for a test file whose sessions are closed after each test (call it once, at
 * the top level of the file).
 */
export function sessionsClosedAfterEach(): typeof startSession {
  const open: Session[] = [];
  afterEach(async () => {
    for (const session of open.splice(0)) await session.close();
  });
  return async (script, options) => {
    const session = await startSession(script, options);
    open.push(session);
    return session;
  };
}
