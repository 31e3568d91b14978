import { lstat, realpath } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { AgentStatechartError } from '../../../machine/index.js';
import { orNullIfMissing } from '../orNullIfMissing.js';
import { DEFAULT_SANDBOX_DENY_READ } from './sandboxOptions.js';

/**
 * One change to the sandbox's view of the file system, which otherwise is the host's, read-only:
 * - `temp`: an empty, writable directory that lives only as long as the command (the private temp);
 * - `hide`: an empty, read-only directory over what is there, or for a file one that cannot be
 *   opened;
 * - `read`: the host's path, read-only (to show it again inside a hidden one);
 * - `write`: the host's path, writable.
 *
 * @example
 * const mount: SandboxMount = { kind: 'write', path: '/srv/repo', directory: true };
 */
export interface SandboxMount {
  kind: 'temp' | 'hide' | 'read' | 'write';
  /** Where it appears inside the sandbox. */
  path: string;
  /** The host path shown there, when it is not `path` itself. */
  source?: string;
  /** A directory, or a file. */
  directory: boolean;
}

/**
 * The paths of {@link SandboxOptions}, absolute or `~/…`.
 *
 * @example
 * const paths: SandboxPaths = { denyRead: ['/srv/secrets'], allowRead: [], allowWrite: ['~/.npm'] };
 */
export interface SandboxPaths {
  denyRead: readonly string[];
  allowRead: readonly string[];
  allowWrite: readonly string[];
}

/** Where host processes leave temporary files, sockets included; each becomes the private temp. */
const HOST_TEMP_DIRECTORIES = ['/tmp', '/var/tmp'];

/** At one path, the stronger grant wins: writing over reading over hiding over the private temp. */
const PRIORITY: Record<SandboxMount['kind'], number> = { temp: 0, hide: 1, read: 2, write: 3 };

/**
 * The mounts that confine a command to `workspace` (a real path), in the order bubblewrap must
 * apply them: outer paths first, so the most specific path wins (a workspace inside a hidden
 * directory is shown again; a denied file inside the workspace is hidden again). Paths are
 * resolved to their real locations; paths that do not exist are left out (there is nothing to
 * hide or share). The home directory stays readable when it lies inside a hidden one such as
 * `/home`, its own denied dotfiles excepted.
 *
 * @example
 * const mounts = await planSandboxMounts('/srv/repo', { denyRead: [], allowRead: [], allowWrite: [] });
 * // [{ kind: 'temp', path: '/tmp', … }, { kind: 'hide', path: '/home', … }, …, { kind: 'write', path: '/srv/repo', … }]
 */
export async function planSandboxMounts(
  workspace: string,
  paths: SandboxPaths,
  home: string = homedir(),
): Promise<SandboxMount[]> {
  const byPath = new Map<string, SandboxMount>();
  const add = async (kind: SandboxMount['kind'], given: string): Promise<void> => {
    const path = await realPathOrNull(expandSandboxPath(given, home));
    if (path === null) return;
    const known = byPath.get(path);
    if (known !== undefined && PRIORITY[known.kind] >= PRIORITY[kind]) return;
    byPath.set(path, { kind, path, directory: (await lstat(path)).isDirectory() });
  };

  for (const path of new Set([...HOST_TEMP_DIRECTORIES, tmpdir()])) await add('temp', path);
  for (const path of [...DEFAULT_SANDBOX_DENY_READ, ...paths.denyRead]) await add('hide', path);
  const realHome = await realPathOrNull(home);
  if (realHome !== null && !byPath.has(realHome) && isHidden(realHome, byPath)) {
    await add('read', realHome);
  }
  for (const path of paths.allowRead) await add('read', path);
  for (const path of paths.allowWrite) await add('write', path);
  await add('write', workspace);
  await protectGitRepository(workspace, byPath);

  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path));
}

/**
 * An absolute path for a sandbox option: `~` and `~/…` name the home directory. Throws
 * {@link AgentStatechartError} `INVALID_OPTION` for a relative path, which would depend on the
 * directory the agent happened to start in.
 *
 * @example
 * expandSandboxPath('~/.npm', '/home/ada'); // '/home/ada/.npm'
 */
export function expandSandboxPath(path: string, home: string = homedir()): string {
  if (typeof path === 'string') {
    if (path === '~') return home;
    if (path.startsWith('~/')) return join(home, path.slice(2));
    if (isAbsolute(path)) return path;
  }
  throw new AgentStatechartError(
    'INVALID_OPTION',
    `sandbox path ${JSON.stringify(path)} is not absolute; give an absolute path or one starting with ~/`,
  );
}

/**
 * Git runs a repository's hooks, and programs its config names (`core.fsmonitor`, filters),
 * outside any sandbox when the host runs git there later, as the git auto-commit hook does. So
 * the workspace repository's config, hooks and submodule repositories stay read-only (an absent
 * hooks directory is shown as an empty read-only one, which creates it empty on the host), and
 * `.git` itself becomes a mount point, which cannot be renamed away and replaced by a new one.
 */
async function protectGitRepository(
  workspace: string,
  byPath: Map<string, SandboxMount>,
): Promise<void> {
  const gitDirectory = join(workspace, '.git');
  if (!(await orNullIfMissing(lstat(gitDirectory)))?.isDirectory()) return;
  byPath.set(gitDirectory, { kind: 'write', path: gitDirectory, directory: true });
  for (const name of ['config', 'hooks', 'modules']) {
    const path = join(gitDirectory, name);
    const found = await orNullIfMissing(lstat(path));
    if (found !== null && !found.isSymbolicLink()) {
      byPath.set(path, { kind: 'read', path, directory: found.isDirectory() });
    } else if (found === null && name === 'hooks') {
      byPath.set(path, { kind: 'hide', path, directory: true });
    }
  }
}

async function realPathOrNull(path: string): Promise<string | null> {
  return orNullIfMissing(realpath(path)).catch((error: unknown) => {
    // Out of this user's sight: inside the sandbox it is out of sight too.
    if ((error as NodeJS.ErrnoException).code === 'EACCES') return null;
    throw error;
  });
}

function isHidden(path: string, byPath: ReadonlyMap<string, SandboxMount>): boolean {
  for (const mount of byPath.values()) {
    if (mount.kind === 'hide' && isStrictlyInside(mount.path, path)) return true;
  }
  return false;
}

function isStrictlyInside(parent: string, candidate: string): boolean {
  const rel = relative(parent, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function depth(path: string): number {
  return path.split(sep).filter((part) => part !== '').length;
}
