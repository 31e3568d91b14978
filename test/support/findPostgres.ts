/**
 * Where the tests find a PostgreSQL server to start: Debian's `postgresql` package installs each
 * major version's programs under `/usr/lib/postgresql/<version>/bin`, and the newest one there is
 * used (`POSTGRES_BIN_DIR` names another directory). `initdb` refuses to run as root, so a root
 * test process runs the server programs as the `postgres` user the package creates.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** How to get PostgreSQL, for every message that reports a missing one. */
export const POSTGRES_HINT =
  'apt-get install postgresql, or set POSTGRES_BIN_DIR=/usr/lib/postgresql/<version>/bin';

/** Where Debian installs one directory per major version. */
const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';

/** The programs a test server needs, all from one version's directory. */
const REQUIRED_PROGRAMS = ['initdb', 'pg_ctl', 'pg_isready'] as const;

/** A PostgreSQL installation the tests can start servers from. */
export interface PostgresInstallation {
  /** The directory holding `initdb`, `pg_ctl` and `pg_isready`. */
  readonly binDir: string;
  /** What `pg_ctl --version` prints, e.g. `pg_ctl (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)`. */
  readonly version: string;
  /** The user the server programs run as when the tests run as root; `null` runs them as we are. */
  readonly runAs: { readonly user: string; readonly uid: number; readonly gid: number } | null;
}

export type PostgresProbe =
  { found: true; installation: PostgresInstallation } | { found: false; problem: string };

/**
 * Looks for PostgreSQL's server programs and checks they run, without starting a server.
 *
 * @example
 * const probe = findPostgres();
 * if (!probe.found) console.warn(`${probe.problem}; ${POSTGRES_HINT}`);
 */
export function findPostgres(env: NodeJS.ProcessEnv = process.env): PostgresProbe {
  const binDir = env.POSTGRES_BIN_DIR || newestDebianBinDir();
  if (binDir === null) {
    return {
      found: false,
      problem: `PostgreSQL is not installed (no ${DEBIAN_POSTGRES_ROOT}/*/bin)`,
    };
  }
  const from = env.POSTGRES_BIN_DIR ? `POSTGRES_BIN_DIR=${binDir}` : binDir;
  const missing = REQUIRED_PROGRAMS.filter((program) => !existsSync(join(binDir, program)));
  if (missing.length > 0) {
    return {
      found: false,
      problem: `PostgreSQL is not installed (${from} has no ${missing.join(', ')})`,
    };
  }
  let version: string;
  try {
    version = execFileSync(join(binDir, 'pg_ctl'), ['--version'], { encoding: 'utf8' }).trim();
  } catch (error) {
    return {
      found: false,
      problem: `PostgreSQL's pg_ctl does not run (${from}: ${String(error)})`,
    };
  }
  if (process.getuid?.() !== 0)
    return { found: true, installation: { binDir, version, runAs: null } };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    return {
      found: true,
      installation: { binDir, version, runAs: { user: 'postgres', uid, gid } },
    };
  } catch {
    return {
      found: false,
      problem: 'the tests run as root and there is no postgres user to run PostgreSQL as',
    };
  }
}

/** The bin directory of the highest major version Debian's packages installed, if any. */
function newestDebianBinDir(): string | null {
  if (!existsSync(DEBIAN_POSTGRES_ROOT)) return null;
  const versions = readdirSync(DEBIAN_POSTGRES_ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .filter((name) => existsSync(join(DEBIAN_POSTGRES_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(DEBIAN_POSTGRES_ROOT, versions[0], 'bin');
}
