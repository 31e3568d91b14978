/**
 * A private PostgreSQL server for one test: its own data directory under the OS temp directory,
 * its own loopback port and unix socket directory, trust authentication, thrown away afterwards.
 *
 * Cleanup does not depend on the test process living to call `stop()`: a small watchdog shell,
 * started before the server in a session of its own, holds the read end of a pipe whose write
 * end only the test process has. When the test process closes it — by `stop()`, by exiting, or by
 * being killed, even with SIGKILL — the watchdog stops the server (`pg_ctl stop -m immediate`) and
 * removes the directory. Only when the watchdog itself is killed too (SIGKILL aimed at it, the OOM
 * killer, the machine going down) is something left behind: the directory
 * `$TMPDIR/agent-statechart-pg-*` and, while the machine runs, its postmaster with a few child
 * processes listening on 127.0.0.1; `pg_ctl stop -D <directory>/data -m immediate` and `rm -rf`
 * remove them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { findPostgres, POSTGRES_HINT, type PostgresInstallation } from './findPostgres.js';

/** A running test server. */
export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:<port>/<database>`: the test's database, trust auth. */
  readonly connectionString: string;
  readonly port: number;
  readonly database: string;
  /** The private directory holding `data/`, `socket/` and `postgres.log`. */
  readonly directory: string;
  /** Stops the server at once (no checkpoint) and removes its directory; calling it again is a no-op. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** The database created for the test (default `test`). */
  database?: string;
  /** Extra `postgresql.conf` settings, e.g. `{ max_connections: 300 }`. */
  settings?: Record<string, string | number>;
  /** Which installation to start it from (default: what {@link findPostgres} finds). */
  installation?: PostgresInstallation;
}

/**
 * Durability a test server does without: its data is thrown away, and the tests kill workers,
 * never the server, so skipping fsync only makes initdb and every commit faster.
 */
const TEST_SETTINGS: Record<string, string | number> = {
  listen_addresses: '127.0.0.1',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

/** A port picked free can be taken by someone else before the server binds it; try a few. */
const PORT_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts a private PostgreSQL server and creates a database in it.
 *
 * @example
 * const server = await startPostgres();
 * const client = new pg.Client({ connectionString: server.connectionString });
 * await client.connect();
 * // …
 * await client.end();
 * await server.stop();
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const installation = options.installation ?? requireInstallation();
  const database = options.database ?? 'test';
  const directory = await mkdtemp(join(tmpdir(), 'agent-statechart-pg-'));
  const dataDir = join(directory, 'data');
  const socketDir = join(directory, 'socket');
  const logFile = join(directory, 'postgres.log');
  if (installation.runAs) await chown(directory, installation.runAs.uid, installation.runAs.gid);
  const watchdog = startWatchdog(installation, dataDir, directory);
  const stop = once(() => stopThroughWatchdog(watchdog));
  try {
    await runAsServerUser(installation, 'mkdir', ['-m', '0700', socketDir]);
    await runAsServerUser(installation, join(installation.binDir, 'initdb'), [
      ...['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C'],
      ...['--no-sync', '--no-instructions'],
    ]);
    const port = await startOnFreePort(installation, dataDir, logFile, {
      ...TEST_SETTINGS,
      unix_socket_directories: socketDir,
      ...options.settings,
    });
    const admin = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      database: 'postgres',
    });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    } finally {
      await admin.end();
    }
    return {
      connectionString: `postgresql://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`,
      port,
      database,
      directory,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

function requireInstallation(): PostgresInstallation {
  const probe = findPostgres();
  if (!probe.found)
    throw new Error(`cannot start a test PostgreSQL: ${probe.problem}; ${POSTGRES_HINT}`);
  return probe.installation;
}

/**
 * The watchdog waits for end of file on its stdin, then stops the server if one is running and
 * removes the directory; its exit status says what failed (1: stop, 2: removal). Its output goes
 * nowhere, so a dead test process's closed pipes cannot kill it halfway.
 */
const WATCHDOG_SCRIPT = `
data=$1; directory=$2; shift 2
cat >/dev/null
status=0
if [ -f "$data/postmaster.pid" ]; then
  "$@" stop -D "$data" -m immediate -w -t 30 || status=1
fi
rm -rf "$directory" || status=2
exit $status
`;

function startWatchdog(installation: PostgresInstallation, dataDir: string, directory: string) {
  const pgCtl = serverUserCommand(installation, join(installation.binDir, 'pg_ctl'), []);
  const watchdog = spawn('sh', ['-c', WATCHDOG_SCRIPT, 'watchdog', dataDir, directory, ...pgCtl], {
    cwd: '/',
    env: serverEnvironment(),
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the watchdog nor its pipe may keep a test process alive that is done otherwise.
  watchdog.unref();
  const stdin = watchdog.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
  stdin?.unref?.();
  return watchdog;
}

function stopThroughWatchdog(watchdog: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (code: number | null) => {
      if (code === 0) resolve();
      else reject(new Error(`stopping the test PostgreSQL failed (${watchdogFailure(code)})`));
    };
    if (watchdog.exitCode !== null) done(watchdog.exitCode);
    else {
      // Awaited now: the process must stay alive until the watchdog has cleaned up.
      watchdog.ref();
      watchdog.once('exit', done);
      watchdog.stdin?.end();
    }
  });
}

function watchdogFailure(code: number | null): string {
  if (code === 1) return 'pg_ctl stop failed';
  if (code === 2) return 'its directory could not be removed';
  return `the watchdog ended with ${code ?? 'a signal'}`;
}

async function startOnFreePort(
  installation: PostgresInstallation,
  dataDir: string,
  logFile: string,
  settings: Record<string, string | number>,
): Promise<number> {
  const pgCtl = join(installation.binDir, 'pg_ctl');
  const timeout = String(READY_TIMEOUT_MS / 1000);
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    // The last occurrence of a setting wins, so each attempt's port overrides the one before.
    await appendFile(join(dataDir, 'postgresql.conf'), configLines({ ...settings, port }));
    // pg_ctl -w knows the postmaster it forked, so it fails at once when that one exits.
    const started = await runAsServerUser(installation, pgCtl, [
      ...['start', '-D', dataDir, '-l', logFile, '-w', '-t', timeout],
    ]).then(
      () => null,
      (error: Error) => error,
    );
    if (started === null) {
      await waitUntilReady(installation, port);
      return port;
    }
    const log = await readFile(logFile, 'utf8').catch(() => '');
    if (!/could not bind|Address already in use/.test(log) || attempt === PORT_ATTEMPTS) {
      throw new Error(
        `the test PostgreSQL did not start (${started.message}); its log:\n${log.slice(-2000)}`,
      );
    }
  }
}

/** Polls `pg_isready` until the server accepts connections on its loopback port. */
async function waitUntilReady(installation: PostgresInstallation, port: number): Promise<void> {
  const pgIsReady = join(installation.binDir, 'pg_isready');
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const code = await exitCode(pgIsReady, ['-h', '127.0.0.1', '-p', String(port), '-t', '1']);
    if (code === 0) return;
    await sleep(25);
  }
  throw new Error(
    `the test PostgreSQL on port ${port} was not ready within ${READY_TIMEOUT_MS} ms`,
  );
}

function configLines(settings: Record<string, string | number>): string {
  const quote = (value: string | number) =>
    typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
  return Object.entries(settings)
    .map(([name, value]) => `${name} = ${quote(value)}\n`)
    .join('');
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('no loopback port could be picked'));
      });
    });
  });
}

/** util-linux's `runuser` lives in sbin, which a PATH set for a plain user may leave out. */
const RUNUSER =
  ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser';

/** `runuser -u postgres -- program …` when we are root, the program itself otherwise. */
function serverUserCommand(
  installation: PostgresInstallation,
  program: string,
  args: string[],
): string[] {
  return installation.runAs
    ? [RUNUSER, '-u', installation.runAs.user, '--', program, ...args]
    : [program, ...args];
}

function runAsServerUser(
  installation: PostgresInstallation,
  program: string,
  args: string[],
): Promise<void> {
  const [command, ...rest] = serverUserCommand(installation, program, args);
  return new Promise((resolve, reject) => {
    // The server user may not be able to enter the test's working directory.
    execFile(command!, rest, { cwd: '/', env: serverEnvironment() }, (error, _stdout, stderr) => {
      if (error)
        reject(new Error(`${program} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve();
    });
  });
}

function exitCode(program: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile(program, args, { cwd: '/', env: serverEnvironment() }, (error) => {
      resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : 1);
    });
  });
}

/** The host's `PG*` variables (PGDATA, PGPORT, …) would point the programs at another server. */
function serverEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
}

function once(action: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= action());
}
