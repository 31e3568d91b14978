/**
 * The tests' private PostgreSQL: a real server from Debian's binaries that a test starts, uses
 * through the `pg` driver and stops, leaving nothing behind, even when the test process is killed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { startPostgres, type PostgresServer } from './postgresServer.js';

const installation = inject('postgresInstallation');
const CHILD = join(import.meta.dirname, 'postgresServerChild.ts');

async function withClient<T>(
  server: { port: number },
  database: string,
  use: (client: pg.Client) => Promise<T>,
) {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: server.port,
    user: 'postgres',
    database,
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Whether anything accepts connections on the port (a stopped server refuses them). */
async function accepts(port: number): Promise<boolean> {
  return withClient({ port }, 'postgres', async () => true).catch(() => false);
}

/** The postmaster's process id, from the first line of its pid file. */
function postmasterPid(directory: string): number {
  return Number(readFileSync(join(directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Whether `pid` runs: a zombie has ended, even while nothing has reaped it yet. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(100);
  }
  return condition();
}

describe.skipIf(installation === null)('startPostgres', () => {
  it('starts a server whose database takes a table, an insert and a read, and stop removes it all', async () => {
    const server = await startPostgres({ installation: installation!, database: 'sessions' });
    let pid = 0;
    try {
      expect(server.connectionString).toBe(
        `postgresql://postgres@127.0.0.1:${server.port}/sessions`,
      );
      const client = new pg.Client({ connectionString: server.connectionString });
      await client.connect();
      try {
        await client.query('CREATE TABLE turns (id serial PRIMARY KEY, text text NOT NULL)');
        await client.query('INSERT INTO turns (text) VALUES ($1), ($2)', ['hello', 'world']);
        const { rows } = await client.query<{ text: string }>('SELECT text FROM turns ORDER BY id');
        expect(rows.map((row) => row.text)).toEqual(['hello', 'world']);
        const { rows: db } = await client.query<{ name: string }>(
          'SELECT current_database() AS name',
        );
        expect(db[0]?.name).toBe('sessions');
      } finally {
        await client.end();
      }
      pid = postmasterPid(server.directory);
      expect(alive(pid)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.directory)).toBe(false);
    // pg_ctl returns once the pid file is gone, a moment before the postmaster's exit completes.
    expect(await until(async () => !alive(pid), 5_000)).toBe(true);
    expect(await accepts(server.port)).toBe(false);
    await expect(server.stop()).resolves.toBeUndefined();
  });

  it('runs two servers side by side, each on its own port with its own data', async () => {
    const servers: PostgresServer[] = await Promise.all([
      startPostgres({ installation: installation! }),
      startPostgres({ installation: installation! }),
    ]);
    try {
      const [first, second] = servers as [PostgresServer, PostgresServer];
      expect(first.port).not.toBe(second.port);
      expect(first.directory).not.toBe(second.directory);
      await withClient(first, 'test', (client) => client.query('CREATE TABLE only_here (x int)'));
      const tables = (server: PostgresServer) =>
        withClient(server, 'test', async (client) => {
          const { rows } = await client.query<{ name: string }>(
            "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
          );
          return rows.map((row) => row.name);
        });
      expect(await tables(first)).toEqual(['only_here']);
      expect(await tables(second)).toEqual([]);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('is stopped and its directory removed when the test process is killed with SIGKILL', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, JSON.stringify(installation)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before starting`)));
    });
    const server = JSON.parse(line) as { port: number; directory: string };
    expect(await accepts(server.port)).toBe(true);
    const pid = postmasterPid(server.directory);

    child.kill('SIGKILL');

    expect(await until(async () => !alive(pid) && !existsSync(server.directory), 15_000)).toBe(
      true,
    );
    expect(await accepts(server.port)).toBe(false);
  });
});
