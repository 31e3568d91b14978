/**
 * The test's side of a crash test (its children in `childSession.ts`): a folder for each run's
 * world, removed after the file; one process of the bundled child with its settings, and what it
 * printed; and the boundaries to kill at, run a few at a time.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { AgentContext, AgentStateValue, Message, StoredEntry } from '../../../src/index.js';
import { type PostgresServer, startPostgres } from '../../support/postgresServer.js';
import type { StoreSetting } from './childSession.js';

/** What a child prints once its session is idle (`printWhenIdle`). */
export interface ChildResult {
  messages: Message[];
  writes: string[];
  state: string;
  stateValue: AgentStateValue;
  context: AgentContext;
  log: StoredEntry[];
}

/** One process's end: the signal that stopped it, if one did, and what it printed. */
export interface ChildRun<Result> {
  signal: string | null;
  result?: Result;
  stderr: string;
}

/**
 * Registers the removal, after the file's tests, of the folders the returned function makes
 * (each a new one under the system's temporary folder, named from `prefix`).
 */
export function useTempDirectories(prefix: string): () => Promise<string> {
  const directories: string[] = [];
  afterAll(async () => {
    await Promise.all(
      directories.map((directory) => rm(directory, { recursive: true, force: true })),
    );
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), prefix));
    directories.push(directory);
    return directory;
  };
}

/**
 * Runs the bundled child `script` with `settings` (as JSON, its one argument); resolves once it
 * has ended, with its last line of output parsed. Rejects if it exited with an error of its own.
 */
export function runChild<Result extends ChildResult>(
  script: string,
  settings: Record<string, unknown>,
): Promise<ChildRun<Result>> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [script, JSON.stringify(settings)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    process_.on('error', reject);
    process_.on('close', (code, signal) => {
      if (signal === null && code !== 0) {
        reject(new Error(`the child exited with ${code}: ${stderr}`));
        return;
      }
      const line = stdout.trim().split('\n').at(-1);
      resolve({ signal, stderr, ...(line ? { result: JSON.parse(line) as Result } : {}) });
    });
  });
}

/** `each` of `items`, `size` at a time. */
export async function inBatches<T>(
  items: T[],
  size: number,
  each: (item: T) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    await Promise.all(items.slice(start, start + size).map(each));
  }
}

/** One store a crash test runs on: its name, and the store setting of a run's world. */
export interface CrashStore {
  name: 'SQLite' | 'PostgreSQL';
  /** The setting for a world in `directory` (a new file, or a new schema). */
  setting(directory: string): StoreSetting;
}

/**
 * Registers `describeCrashes` on SQLite, and on PostgreSQL (a server of its own, database
 * `database`) when one can be started here.
 */
export function describeOnStores(
  database: string,
  describeCrashes: (store: CrashStore) => void,
): void {
  describeCrashes({
    name: 'SQLite',
    setting: (directory) => ({ sqlite: join(directory, 'sessions.db') }),
  });
  const installation = inject('postgresInstallation');
  describe.skipIf(installation === null)('on PostgreSQL', () => {
    let server: PostgresServer;
    let schemas = 0;
    beforeAll(async () => {
      server = await startPostgres({ installation: installation!, database });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });
    describeCrashes({
      name: 'PostgreSQL',
      setting: () => ({ postgres: server.connectionString, schema: `crash${++schemas}` }),
    });
  });
}
