import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AgentStatechartError } from '../../machine/index.js';

/**
 * A path a tool may touch: where it really is, and how to name it to the model.
 *
 * @example
 * const target: WorkspacePath = { root: '/repo', absolute: '/repo/src/a.ts', display: 'src/a.ts' };
 */
export interface WorkspacePath {
  /** Real path of the workspace root (symbolic links resolved). */
  root: string;
  /** Real path of the target, or, when it does not exist yet, of its deepest existing ancestor joined with the rest. */
  absolute: string;
  /** The requested path relative to the root, with `/` separators (`.` for the root itself). */
  display: string;
}

/**
 * Resolves the workspace root to its real path and checks it is a directory.
 * Throws {@link AgentStatechartError} `INVALID_WORKSPACE` otherwise.
 *
 * @example
 * const root = await resolveWorkspaceRoot(ctx.workspace); // '/private/tmp/ws' on macOS for '/tmp/ws'
 */
export async function resolveWorkspaceRoot(workspace: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw new AgentStatechartError(
      'INVALID_WORKSPACE',
      `workspace root '${workspace}' does not exist; create it or point the agent at an existing directory`,
      { cause: error },
    );
  }
  if (!(await stat(root)).isDirectory()) {
    throw new AgentStatechartError(
      'INVALID_WORKSPACE',
      `workspace root '${workspace}' is not a directory; point the agent at a directory`,
    );
  }
  return root;
}

/**
 * Confines a path the model gave to the workspace root. Refuses, with
 * {@link AgentStatechartError} `PATH_OUTSIDE_WORKSPACE` and a message saying what to do instead:
 * absolute paths, `..` escapes, and symbolic links whose real path leaves the root. For a path
 * that does not exist yet, the real path of its deepest existing ancestor is checked, so a new file
 * cannot be created through a linked directory that points outside.
 *
 * The returned `absolute` path has every link resolved, so the file system opens exactly what was
 * checked. (A link swapped in between the check and the use is not guarded against.)
 *
 * @example
 * const { absolute, display } = await resolveInWorkspace(ctx.workspace, input.path);
 * const text = await readFile(absolute, 'utf8');
 */
export async function resolveInWorkspace(
  workspace: string,
  requested: string,
): Promise<WorkspacePath> {
  if (requested.includes('\0')) {
    throw new Error(`path ${JSON.stringify(requested)} contains a NUL byte; remove it`);
  }
  if (isAbsolute(requested)) {
    throw outside(
      `path '${requested}' is absolute; give a path relative to the workspace root (for example 'src/index.ts')`,
    );
  }
  const root = await resolveWorkspaceRoot(workspace);
  // Normalising here, and opening only the normalised path, means `link/..` can never be
  // interpreted by the OS differently from how it was checked.
  const lexical = resolve(root, requested);
  if (!isInside(root, lexical)) {
    throw outside(
      `path '${requested}' leaves the workspace root through '..'; give a path inside the workspace`,
    );
  }
  const display = toDisplay(root, lexical);

  const missing: string[] = [];
  let existing = lexical;
  for (;;) {
    let real: string | undefined;
    try {
      real = await realpath(existing);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (real !== undefined) {
      if (!isInside(root, real)) {
        throw outside(
          `path '${requested}' goes through a symbolic link to '${real}', outside the workspace root; use a path whose real location is inside the workspace`,
        );
      }
      return { root, absolute: join(real, ...missing.reverse()), display };
    }
    if (await isSymbolicLink(existing)) {
      throw outside(
        `path '${requested}' goes through the broken symbolic link '${toDisplay(root, existing)}'; remove the link or use its target's path`,
      );
    }
    // The root exists, so the walk ends at the root at the latest.
    missing.push(basename(existing));
    existing = dirname(existing);
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function toDisplay(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function isSymbolicLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

function outside(message: string): AgentStatechartError {
  return new AgentStatechartError('PATH_OUTSIDE_WORKSPACE', message);
}
