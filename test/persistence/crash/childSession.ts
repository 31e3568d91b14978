/**
 * What every process of a crash test does with its session (bundled into the child, so nothing
 * here imports Vitest): a store that counts its writes and kills the process just before or just
 * after the chosen one, and the result the process prints once the session is idle.
 */
import type { Agent } from '../../../src/index.js';
import { createPostgresSessionStore } from '../../../src/persistence/postgresSessionStore.js';
import { createSqliteSessionStore } from '../../../src/persistence/sqliteSessionStore.js';
import type { SessionStore } from '../../../src/persistence/sessionStore.js';

/** Where a crash test's sessions live: a SQLite file, or a schema of a PostgreSQL server. */
export type StoreSetting = { sqlite: string } | { postgres: string; schema: string };

/** The store `setting` names, as every process of a crash test opens it. */
export function openStoreSetting(setting: StoreSetting): SessionStore {
  return 'sqlite' in setting
    ? createSqliteSessionStore({ path: setting.sqlite, durability: 'normal' })
    : createPostgresSessionStore({ connectionString: setting.postgres, schema: setting.schema });
}

/** Where the process dies: just before the store takes write k, or just after write k is stored. */
export interface KillPoint {
  /** Die just before the store takes this write (its work is done, nothing of it is stored). */
  killBeforeWrite?: number;
  /** Die just after this write is stored. */
  killAfterWrite?: number;
}

/** What every child process is started with (as JSON, its one argument). */
export interface ChildSettings extends KillPoint {
  workspace: string;
  baseURL: string;
  sessionId: string;
  store: StoreSetting;
}

/**
 * The settings this process was started with, and its store, counting its writes and dying
 * where they say.
 */
export function openChildSession<Settings extends ChildSettings>(): {
  settings: Settings;
  counted: CountingStore;
} {
  const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
  return { settings, counted: countingStore(openStoreSetting(settings.store), settings) };
}

/** A store that counts its writes (`writes`, one line each) and dies at `kill`. */
export interface CountingStore {
  store: SessionStore;
  writes: string[];
}

/** The store, counting its writes, and dying just before or just after the chosen one. */
export function countingStore(store: SessionStore, kill: KillPoint): CountingStore {
  const writes: string[] = [];
  return {
    writes,
    store: {
      ...store,
      async append(sessionId, write) {
        if (writes.length + 1 === kill.killBeforeWrite) process.kill(process.pid, 'SIGKILL');
        await store.append(sessionId, write);
        const entries = write.entries.map((entry) =>
          entry.kind === 'started' ? `started ${entry.data.effect}` : entry.data.type,
        );
        writes.push([...entries, ...(write.checkpoint ? ['checkpoint'] : [])].join(' + '));
        if (writes.length === kill.killAfterWrite) process.kill(process.pid, 'SIGKILL');
      },
    },
  };
}

/**
 * Drives the session until it is idle and prints, as one JSON line, the transcript, the store's
 * writes, the chart as it stands and the session's whole log (with what `more` adds); then shuts
 * the agent down and closes the store.
 */
export async function printWhenIdle(
  agent: Agent,
  counted: CountingStore,
  sessionId: string,
  more: (store: SessionStore) => Promise<Record<string, unknown>> = async () => ({}),
): Promise<void> {
  const { store, writes } = counted;
  await agent.waitUntilIdle({ timeoutMs: 20_000 });
  await agent.recorded();
  const result = {
    messages: agent.context.messages,
    writes,
    state: agent.state,
    stateValue: agent.stateValue,
    context: agent.context,
    log: await store.entries(sessionId),
    ...(await more(store)),
  };
  await agent.shutdown({ drain: true });
  await store.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
