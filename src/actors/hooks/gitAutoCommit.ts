import { stat } from 'node:fs/promises';
import {
  AGENT_STATECHART_FOLDER,
  type CompletedToolInfo,
  errorMessage,
  isMutatingTool,
} from '../../machine/index.js';
import { type CommitMessageInfo, formatCommitMessage } from './formatCommitMessage.js';
import { type GitRun, runGit } from '../git/runGit.js';
import { uncommittedPaths } from '../git/uncommittedPaths.js';

/**
 * What {@link gitAutoCommit} needs.
 *
 * @example
 * const options: GitAutoCommitOptions = {
 *   workspace: '/repo',
 *   completedTools: [{ name: 'edit_file', succeeded: true }],
 *   changedPaths: ['src/a.ts'],
 *   isMutating: (name) => registry.isMutating(name),
 * };
 */
export interface GitAutoCommitOptions {
  /** Directory the agent works in. */
  workspace: string;
  /** Every call of the response, as `RunPostToolsHook` lists them. */
  completedTools: readonly CompletedToolInfo[];
  /**
   * The workspace-relative paths the response's successful calls changed (`ToolOutcome`'s
   * `changedPaths`, gathered by `changedPathsOf`). Only these are committed, and only while they
   * are still uncommitted; anything else in the workspace is left as it is.
   */
  changedPaths: readonly string[];
  /** Aborting stops the running git command; the result is then an error. */
  signal?: AbortSignal;
  /**
   * Whether a tool changes the workspace. Default: Loom's rule (`edit_file`, `write_file`, `bash`).
   * With a registry, pass `(name) => registry.isMutating(name)`.
   */
  isMutating?: (toolName: string) => boolean;
  /**
   * Author and committer of the commit. When given, always used; when not, the repository's own
   * `user.name` / `user.email` are used, and {@link DEFAULT_COMMIT_IDENTITY} fills in what is missing.
   */
  identity?: { name: string; email: string };
  /** Builds the commit message. Default {@link formatCommitMessage}. */
  formatMessage?: (info: CommitMessageInfo) => string;
  /**
   * Run the repository's `pre-commit` and `commit-msg` hooks. Default false: a slow or failing
   * user hook must not stall or break the agent's loop.
   */
  runHooks?: boolean;
  /** Longest a single git command may take, in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Environment of git. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * What the hook did. `actionTaken` is what the chart's `PostToolsHookCompleted` carries.
 *
 * @example
 * const result: GitAutoCommitResult = { actionTaken: false, skipped: 'no-changes' };
 */
export interface GitAutoCommitResult {
  actionTaken: boolean;
  /** The commit made, when one was. */
  commit?: { sha: string; message: string; files: string[] };
  /** Why nothing was committed, when that was the expected outcome. */
  skipped?: 'no-mutation' | 'not-a-repo' | 'no-changes';
  /** Why nothing was committed, when something failed. */
  error?: string;
}

/**
 * Who commits when the repository configures nobody.
 *
 * @example
 * await gitAutoCommit({ workspace, completedTools, changedPaths, identity: DEFAULT_COMMIT_IDENTITY });
 */
export const DEFAULT_COMMIT_IDENTITY: Readonly<{ name: string; email: string }> = Object.freeze({
  name: 'agent-statechart',
  email: 'agent-statechart@localhost',
});

/**
 * The post-tools hook: commits what the agent changed, following Loom's rules. It commits only
 * when some call succeeded with a mutating tool, only inside a git work tree, and only the paths
 * the tools reported changing (`changedPaths`) that are still uncommitted and not ignored — never
 * the user's own uncommitted or untracked files. The user's staged changes to other files stay
 * staged and out of the commit. Running it again after it committed (a resume after a crash)
 * finds nothing left and commits nothing. The message names the tools and the files.
 *
 * Fail-open: it never rejects. Any git failure (no git, a broken repository, a bad workspace path,
 * an abort) comes back as `{ actionTaken: false, error }` so the agent goes on.
 *
 * @example
 * const result = await gitAutoCommit({
 *   workspace: '/repo',
 *   completedTools: [{ name: 'read_file', succeeded: true }, { name: 'edit_file', succeeded: true }],
 *   changedPaths: ['src/a.ts'],
 *   isMutating: (name) => registry.isMutating(name),
 *   signal,
 * });
 * agent.send({ type: 'PostToolsHookCompleted', actionTaken: result.actionTaken });
 */
export async function gitAutoCommit(options: GitAutoCommitOptions): Promise<GitAutoCommitResult> {
  try {
    return await commitIfChanged(options);
  } catch (error) {
    return { actionTaken: false, error: errorMessage(error) };
  }
}

async function commitIfChanged(options: GitAutoCommitOptions): Promise<GitAutoCommitResult> {
  const isMutating = options.isMutating ?? ((name: string) => isMutatingTool(name, []));
  const tools = [
    ...new Set(
      options.completedTools
        .filter((tool) => tool.succeeded && isMutating(tool.name))
        .map((tool) => tool.name),
    ),
  ];
  if (tools.length === 0) return { actionTaken: false, skipped: 'no-mutation' };
  const changed = options.changedPaths.filter(
    (path) => isWorkspaceRelative(path) && !isAgentStatechartFolder(path),
  );
  if (changed.length === 0) return { actionTaken: false, skipped: 'no-changes' };

  const { workspace } = options;
  if (!(await isDirectory(workspace))) {
    return { actionTaken: false, error: `workspace '${workspace}' is not a directory` };
  }
  const gitOptions = {
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs ?? 30_000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const git = (args: readonly string[], input?: string): Promise<GitRun> =>
    runGit(args, { cwd: workspace, ...gitOptions, ...(input === undefined ? {} : { input }) });

  // Only what is still uncommitted among the reported paths: after a crash the hook can run
  // again and commits nothing twice; ignored files are never listed.
  const pending = await uncommittedPaths(workspace, { ...gitOptions, paths: changed });
  if (pending.status === 'not-a-repo') return { actionTaken: false, skipped: 'not-a-repo' };
  if (pending.status === 'failed') return { actionTaken: false, error: pending.message };
  if (pending.paths.length === 0) return { actionTaken: false, skipped: 'no-changes' };

  // Staging and committing name the paths, so the user's own staged changes to other files stay
  // staged and out of the commit (`commit --only` builds the commit from a temporary index).
  const pathspecs = pending.paths.map((path) => `${path}\0`).join('');
  const pathspecFromInput = ['--pathspec-from-file=-', '--pathspec-file-nul'];
  const added = await git(['add', '--all', ...pathspecFromInput], pathspecs);
  if (!added.ok) return { actionTaken: false, error: added.message };

  const files = pending.paths.map((path) => `${pending.prefix}${path}`);
  const identity = await commitIdentity(options.identity, git);
  const message = (options.formatMessage ?? formatCommitMessage)({ tools, files });
  const commit = await git(
    [
      '-c',
      `user.name=${identity.name}`,
      '-c',
      `user.email=${identity.email}`,
      // A signing prompt would block the loop; auto-commits are not signed.
      '-c',
      'commit.gpgsign=false',
      'commit',
      '--quiet',
      '--only',
      ...(options.runHooks ? [] : ['--no-verify']),
      '--message',
      message,
      ...pathspecFromInput,
    ],
    pathspecs,
  );
  if (!commit.ok) return { actionTaken: false, error: commit.message };

  const head = await git(['rev-parse', 'HEAD']);
  if (!head.ok) return { actionTaken: false, error: head.message };
  return { actionTaken: true, commit: { sha: head.stdout.trim(), message, files } };
}

/** The auto-commit stays out of the package's own folder, even when its `.gitignore` is gone. */
function isAgentStatechartFolder(path: string): boolean {
  return path === AGENT_STATECHART_FOLDER || path.startsWith(`${AGENT_STATECHART_FOLDER}/`);
}

/** A path a tool reported: relative, inside the workspace, in the canonical form git prints. */
function isWorkspaceRelative(path: string): boolean {
  return (
    typeof path === 'string' &&
    path !== '' &&
    !path.startsWith('/') &&
    !path.includes('\0') &&
    path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

async function commitIdentity(
  given: GitAutoCommitOptions['identity'],
  git: (args: readonly string[]) => Promise<GitRun>,
): Promise<{ name: string; email: string }> {
  if (given !== undefined) return given;
  // Exit code 1 just means neither is set; either way the defaults fill the gaps.
  const configured = await git(['config', '--get-regexp', '^user\\.(name|email)$']);
  const identity = { ...DEFAULT_COMMIT_IDENTITY };
  for (const line of configured.ok ? configured.stdout.split('\n') : []) {
    const space = line.indexOf(' ');
    if (space === -1) continue;
    const key = line.slice(0, space);
    const value = line.slice(space + 1).trim();
    if (value === '') continue;
    if (key === 'user.name') identity.name = value;
    if (key === 'user.email') identity.email = value;
  }
  return identity;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
