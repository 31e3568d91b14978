import { type GitRun, runGit } from './runGit.js';

/**
 * What git says is not committed under a workspace, or why it cannot say.
 *
 * @example
 * const status: UncommittedPaths = { status: 'ok', prefix: 'pkg/', paths: ['src/a.ts', 'notes.md'] };
 */
export type UncommittedPaths =
  | {
      status: 'ok';
      /** Where the workspace lies in its repository: `''` at the root, `'pkg/'` below it. */
      prefix: string;
      /** Workspace-relative paths with `/` separators, in git's order. */
      paths: string[];
    }
  | { status: 'not-a-repo' }
  | { status: 'failed'; message: string };

/**
 * Where and how to ask git.
 *
 * @example
 * const options: UncommittedPathsOptions = { paths: ['notes.md'], signal, timeoutMs: 30_000 };
 */
export interface UncommittedPathsOptions {
  /** Only these workspace-relative paths; default every path under the workspace. */
  paths?: readonly string[];
  signal?: AbortSignal;
  /** Longest a git command may take, in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Environment of git. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Above this many paths, the whole workspace is asked about and the answer filtered: a command
 * line has a length limit.
 */
const MAX_PATHSPECS = 200;

/**
 * The files under a workspace that git sees as not committed: modified, deleted, added, renamed
 * (both names) or untracked, each file of a new directory listed on its own. Ignored files are
 * never listed. Failures are data (`not-a-repo`, `failed`), never a rejection.
 *
 * @example
 * const before = await uncommittedPaths(workspace, { signal });
 * if (before.status === 'ok') console.log(before.paths); // ['notes.md', 'src/new.ts']
 */
export async function uncommittedPaths(
  workspace: string,
  options: UncommittedPathsOptions = {},
): Promise<UncommittedPaths> {
  const git = (args: readonly string[]): Promise<GitRun> =>
    runGit(args, {
      cwd: workspace,
      timeoutMs: options.timeoutMs ?? 30_000,
      env: options.env ?? process.env,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });

  const where = await git(['rev-parse', '--is-inside-work-tree', '--show-prefix']);
  if (!where.ok) {
    return /not a git repository/i.test(where.stderr)
      ? { status: 'not-a-repo' }
      : { status: 'failed', message: where.message };
  }
  const [inside, prefix = ''] = where.stdout.split('\n');
  // "false" inside a .git directory or a bare repository: there is no work tree.
  if (inside !== 'true') return { status: 'not-a-repo' };

  const wanted = options.paths;
  if (wanted !== undefined && wanted.length === 0) return { status: 'ok', prefix, paths: [] };
  const pathspecs = wanted === undefined || wanted.length > MAX_PATHSPECS ? ['.'] : wanted;
  const status = await git([
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--',
    ...pathspecs,
  ]);
  if (!status.ok) return { status: 'failed', message: status.message };

  const listed = parsePorcelainPaths(status.stdout)
    .filter((path) => path.startsWith(prefix))
    .map((path) => path.slice(prefix.length));
  const keep = wanted === undefined ? null : new Set(wanted);
  const paths = [...new Set(listed)].filter((path) => keep === null || keep.has(path));
  return { status: 'ok', prefix, paths };
}

/**
 * The repository-relative paths of `git status --porcelain=v1 -z`: `XY path`, and for a rename or
 * copy `XY new` followed by the old name as a field of its own.
 */
function parsePorcelainPaths(output: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] ?? '';
    if (field.length < 4) continue;
    paths.push(field.slice(3));
    if (/[RC]/.test(field.slice(0, 2))) {
      const from = fields[index + 1];
      if (from !== undefined && from !== '') paths.push(from);
      index += 1;
    }
  }
  return paths;
}
