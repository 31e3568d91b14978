/**
 * Agent hosts on a scripted model: each test of the file that calls {@link useHostSessions} gets
 * a folder and a SQLite store of its own and a local Messages API server playing the script; the
 * hosts it made are closed, then the server, when it ends.
 */
import { beforeEach } from 'vitest';
import { type AgentHost, type AgentHostOptions, createAgentHost } from '../../src/index.js';
import {
  type MessagesApiServer,
  type Script,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { type TempStore, useTempStore } from './tempStore.js';

/** What a test of the file reads: its folder and store, the server, and how to make hosts. */
export interface HostSessions {
  readonly temp: TempStore;
  /** The current test's server. */
  readonly server: () => MessagesApiServer;
  /** The hosts of the current test, closed after it: push one made by hand. */
  readonly hosts: AgentHost[];
  /**
   * A host on the test's store and server, in its folder, without auto-commit and with the
   * options `useHostSessions` was given, letting an idle session go after `idleMs`.
   */
  readonly host: (idleMs?: number) => AgentHost;
}

/**
 * Registers the hooks that give each test a store and a server playing `script` (started again
 * for each test, so a script may keep per-test state in the test file).
 */
export function useHostSessions(
  prefix: string,
  script: Script,
  shared: Omit<Partial<AgentHostOptions>, 'store' | 'idleMs'> = {},
): HostSessions {
  let server: MessagesApiServer | undefined;
  const hosts: AgentHost[] = [];
  const temp = useTempStore(prefix, async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
    await server?.close();
    server = undefined;
  });
  beforeEach(async () => {
    server = await startMessagesApiServer({ script });
  });
  const current = () => {
    if (server === undefined) throw new Error('useHostSessions: read it inside a test');
    return server;
  };
  return {
    temp,
    server: current,
    hosts,
    host: (idleMs = 60_000) => {
      const created = createAgentHost({
        store: temp.store,
        idleMs,
        workspace: temp.directory,
        autoCommit: false,
        anthropic: { baseURL: current().baseURL, apiKey: 'test-key' },
        ...shared,
      });
      hosts.push(created);
      return created;
    },
  };
}
