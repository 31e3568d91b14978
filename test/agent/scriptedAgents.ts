/**
 * Agents on a scripted model: each test of the file that calls {@link useScriptedAgents} gets a
 * workspace and a SQLite store of its own, and the agents it starts against the local Messages
 * API server are shut down, and the server closed, when it ends.
 */
import { afterEach } from 'vitest';
import { z } from 'zod';
import { type Agent, createAgent, type CreateAgentOptions, defineTool } from '../../src/index.js';
import {
  type MessagesApiServer,
  type Script,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { type TempStore, useTempStore } from '../support/tempStore.js';

/** A read-only tool the scripted model calls. */
export const lookUp = defineTool({
  name: 'look_up',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  mutating: false,
  execute: ({ word }) => `${word}: a word`,
});

/** A mutating tool that is not an edit: it asks for approval in `default` and `acceptEdits`. */
export const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a finding',
  input: z.object({ what: z.string() }),
  mutating: true,
  execute: ({ what }) => `deployed ${what}`,
});

/** What a test of the file reads: its folder and store, the server, and how to start agents. */
export interface ScriptedAgents {
  readonly temp: TempStore;
  /** The current test's server (started by the first agent of the test). */
  server(): MessagesApiServer;
  /**
   * An agent (ready) on a server playing `script`, with `look_up` and no auto-commit; the first
   * call of a test starts the server, later ones share it (their `script` is not used).
   */
  start(script: Script, options?: CreateAgentOptions): Promise<Agent>;
  /**
   * Another agent on the test's server, made as `start` makes one but not yet ready: a test
   * listens to it before its session opens (a restart, on the store a first agent left).
   */
  open(options?: CreateAgentOptions): Agent;
}

export function useScriptedAgents(prefix: string): ScriptedAgents {
  let server: MessagesApiServer | undefined;
  const agents: Agent[] = [];
  const temp = useTempStore(prefix, async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.shutdown({ timeoutMs: 1_000 })));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const current = () => {
    if (server === undefined) throw new Error('no agent was started in this test');
    return server;
  };
  const open = (options: CreateAgentOptions = {}): Agent => {
    const agent = createAgent({
      workspace: temp.directory,
      autoCommit: false,
      tools: [lookUp],
      anthropic: { baseURL: current().baseURL, apiKey: 'test-key' },
      ...options,
    });
    agents.push(agent);
    return agent;
  };
  return {
    temp,
    server: current,
    async start(script, options = {}) {
      server ??= await startMessagesApiServer({ script });
      const agent = open(options);
      await agent.ready;
      return agent;
    },
    open,
  };
}
