/**
 * What an agent says of itself as it starts, as `diagnostic` notifications a service can log: no
 * API key configured (a model call then fails as `auth` at once), and a workspace in the git
 * repository of the process itself with auto-commit on.
 */
import { mkdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromCallback } from 'xstate';
import {
  type Agent,
  type CreateAgentOptions,
  createAgent,
  type StartupDiagnostic,
} from '../../src/index.js';
import { type MessagesApiServer, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { withoutCredentials } from '../support/noCredentials.js';
import { gitWorkspace } from './harness.js';

let agent: Agent | undefined;
let server: MessagesApiServer | undefined;
const workspaces: string[] = [];
afterEach(async () => {
  await agent?.shutdown();
  await server?.close();
  [agent, server] = [undefined, undefined];
  for (const workspace of workspaces.splice(0))
    await rm(workspace, { recursive: true, force: true });
});

async function workspace(): Promise<string> {
  const made = await gitWorkspace();
  workspaces.push(made);
  return made;
}

/** The diagnostics an agent reports, from its creation on. */
function diagnosticsOf(created: Agent): StartupDiagnostic['code'][] {
  const codes: StartupDiagnostic['code'][] = [];
  created.on('diagnostic', ({ code }) => codes.push(code as StartupDiagnostic['code']));
  return codes;
}

/**
 * Options for an agent with no credential, whose model is a local server that would answer once.
 * The agent is created by the caller, so its listeners are on before its first diagnostic.
 */
async function keylessOptions(): Promise<CreateAgentOptions> {
  withoutCredentials();
  const started = await startMessagesApiServer({ script: [reply('never sent')] });
  server = started;
  return { workspace: await workspace(), tools: [], anthropic: { baseURL: started.baseURL } };
}

describe('createAgent at start', () => {
  it('says no API key is configured, and a model call then fails as auth at once, never retried', async () => {
    agent = createAgent(await keylessOptions());
    const diagnostics: StartupDiagnostic[] = [];
    agent.on('diagnostic', (diagnostic) => diagnostics.push(diagnostic as StartupDiagnostic));
    const errors: string[] = [];
    const retries: number[] = [];
    agent.on('error', ({ message }) => errors.push(message));
    agent.on('retry', ({ attempt }) => retries.push(attempt));
    await agent.ready;
    expect(diagnostics).toEqual([
      {
        code: 'NO_API_KEY',
        message:
          'no Anthropic API key is configured (no apiKey or authToken in the anthropic option, no ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in the environment), so model calls will fail as auth errors unless the SDK finds a credentials profile',
        state: 'WaitingForUserInput',
        event: undefined,
      },
    ]);

    agent.send('hi');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(retries).toEqual([]);
    expect(agent.context.lastError).toMatchObject({ kind: 'auth' });
    expect(errors).toEqual([expect.stringMatching(/Could not resolve authentication method/)]);
    expect(server?.requests).toEqual([]);
  });

  it('names the state the agent started in, though input sent at once has moved it on', async () => {
    agent = createAgent(await keylessOptions());
    const states: string[] = [];
    agent.on('diagnostic', ({ code, state }) => {
      if (code === 'NO_API_KEY') states.push(state);
    });
    agent.send('hi');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(states).toEqual(['WaitingForUserInput']);
  });

  it('says nothing of a key when one is configured, or when no client of its own calls the model', async () => {
    withoutCredentials();
    const root = await workspace();
    const given = createAgent({ workspace: root, tools: [], anthropic: { apiKey: 'sk-given' } });
    const replaced = createAgent({
      workspace: root,
      tools: [],
      actors: { llm: fromCallback(() => undefined) },
    });
    const heard = [diagnosticsOf(given), diagnosticsOf(replaced)];
    await Promise.all([given.ready, replaced.ready]);
    await Promise.all([given.shutdown(), replaced.shutdown()]);
    expect(heard).toEqual([[], []]);
  });

  it('warns when its workspace is in the git repository the process runs from and auto-commit is on', async () => {
    const service = await workspace();
    const inside = join(service, 'agents');
    await mkdir(inside);
    const elsewhere = await workspace();
    const before = process.cwd();
    process.chdir(inside);
    try {
      const heard = await Promise.all(
        [
          { workspace: service },
          { workspace: inside },
          { workspace: service, autoCommit: false },
          { workspace: service, actors: { postToolsHook: fromCallback(() => undefined) } },
          { workspace: elsewhere },
        ].map(async (options) => {
          const created = createAgent({ tools: [], anthropic: { apiKey: 'sk-x' }, ...options });
          const messages: string[] = [];
          created.on('diagnostic', ({ message }) => messages.push(message));
          await created.ready;
          await created.shutdown();
          return messages;
        }),
      );
      const root = await realpath(service);
      const warning = (path: string) =>
        `the workspace ${path} is in the git repository this process runs from (${root}), and auto-commit is on: the agent's edits will be committed to it. Give the agent a workspace of its own, or pass autoCommit: false`;
      expect(heard).toEqual([[warning(service)], [warning(inside)], [], [], []]);
    } finally {
      process.chdir(before);
    }
  });
});
