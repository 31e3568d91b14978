/**
 * Builds the package as it was at another commit, for `npm run bench -- --baseline=<git ref>`:
 * a detached git worktree of that commit in a cache folder (kept between runs and moved to the
 * commit asked for), whose `src/` this checkout's tsc compiles with this checkout's bench
 * settings into plain JavaScript beside it, as `run.ts` compiles the current `src/`. Only the
 * package comes from the commit: its own tsconfig and bench may differ from today's, and the
 * bench that measures it is always this checkout's. The compiled files find their dependencies
 * in this checkout's node_modules, which holds the cache folder (Node and tsc look for packages
 * in every folder above a file).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BaselineBuild } from './baselinePackage.js';

export interface BaselinePlace {
  /** The root of this checkout: its git repository, its tsc and its bench/tsconfig.json. */
  checkout: string;
  /** Where the worktree and its build are kept, inside the checkout's node_modules. */
  cacheDir: string;
}

function git(cwd: string, args: readonly string[]): { ok: boolean; out: string; err: string } {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return { ok: result.status === 0, out: result.stdout.trim(), err: result.stderr.trim() };
}

function gitOrThrow(cwd: string, args: readonly string[]): string {
  const result = git(cwd, args);
  if (!result.ok) throw new Error(`bench --baseline: git ${args.join(' ')} failed: ${result.err}`);
  return result.out;
}

/** The full hash of the commit `ref` names in the checkout's repository. */
export function resolveCommit(checkout: string, ref: string): string {
  const result = git(checkout, [
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${ref}^{commit}`,
  ]);
  if (!result.ok || !/^[0-9a-f]{40,64}$/.test(result.out)) {
    throw new Error(
      `bench --baseline=${ref}: no such commit in this repository (a branch, tag, hash or HEAD~n)`,
    );
  }
  return result.out;
}

/** True when `path` is the top of a git worktree of its own (not a folder inside the checkout). */
function isWorktree(path: string): boolean {
  if (!existsSync(join(path, '.git'))) return false;
  const top = git(path, ['rev-parse', '--show-toplevel']);
  return top.ok && realpathSync(top.out) === realpathSync(path);
}

/** Puts a detached worktree of `commit` at `path`, reusing the one there. */
function checkOut(checkout: string, path: string, commit: string): void {
  if (isWorktree(path)) {
    // The cache's own worktree: nobody edits it, so whatever differs from the commit goes.
    gitOrThrow(path, ['checkout', '--quiet', '--force', '--detach', commit]);
    gitOrThrow(path, ['clean', '--quiet', '--force', '-d', '-x', '--', 'src']);
    return;
  }
  rmSync(path, { recursive: true, force: true });
  // --force: the folder may still be registered as a worktree whose files were deleted.
  gitOrThrow(checkout, ['worktree', 'add', '--quiet', '--force', '--detach', path, commit]);
}

/** Compiles the worktree's src/ into `outDir` with the checkout's tsc and bench settings. */
function compile(place: BaselinePlace, worktree: string, outDir: string, commit: string): void {
  const project = join(place.cacheDir, 'tsconfig.json');
  writeFileSync(
    project,
    `${JSON.stringify(
      {
        extends: join(place.checkout, 'bench', 'tsconfig.json'),
        compilerOptions: { rootDir: worktree, outDir },
        include: [join(worktree, 'src')],
        exclude: [],
      },
      null,
      2,
    )}\n`,
  );
  rmSync(outDir, { recursive: true, force: true });
  const tsc = join(place.checkout, 'node_modules', 'typescript', 'bin', 'tsc');
  // As for the current tree: `npm run typecheck` is the place for type errors, tsc only emits.
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--noCheck'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new Error(
      `bench --baseline: compiling src/ of ${commit.slice(0, 12)} failed (tsc exited ${result.status})`,
    );
  }
}

/** Checks out and compiles the package at `ref`; returns where its entry is. */
export function buildBaseline(ref: string, place: BaselinePlace): BaselineBuild {
  const commit = resolveCommit(place.checkout, ref);
  const [title = '', committedAt = ''] = gitOrThrow(place.checkout, [
    'show',
    '--no-patch',
    '--format=%s%n%cI',
    commit,
  ]).split('\n');
  mkdirSync(place.cacheDir, { recursive: true });
  const worktree = join(place.cacheDir, 'agent-statechart-baseline');
  const outDir = join(place.cacheDir, 'build');
  checkOut(place.checkout, worktree, commit);
  if (!existsSync(join(worktree, 'src', 'index.ts'))) {
    throw new Error(`bench --baseline=${ref}: commit ${commit.slice(0, 12)} has no src/index.ts`);
  }
  compile(place, worktree, outDir, commit);
  return { ref, commit, title, committedAt, entry: join(outDir, 'src', 'index.js') };
}
