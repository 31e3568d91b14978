/**
 * What the built-in mutating tools tell the git auto-commit: the files a call changed that had no
 * uncommitted change before it. A file the user was already changing (modified, staged or
 * untracked) is never claimed, whatever the call did to it: the user's work in progress cannot be
 * told apart from the agent's, and it is theirs to commit.
 */
import { uncommittedPaths } from '../../git/uncommittedPaths.js';
import type { ToolContext } from '../defineTool.js';
import type { WorkspacePath } from '../resolveInWorkspace.js';

/**
 * Call before writing one file; the returned function, called after a successful write, reports
 * the file as changed unless git listed it as uncommitted before. Outside a git repository the
 * file is reported as written.
 *
 * @example
 * const reportWrite = await trackFileChange(ctx, target);
 * await writeFileAtomically(target.absolute, content, { signal: ctx.signal });
 * reportWrite();
 */
export async function trackFileChange(
  ctx: ToolContext,
  target: WorkspacePath,
): Promise<() => void> {
  const before = await uncommittedPaths(target.root, {
    paths: [target.display],
    signal: ctx.signal,
  });
  const wasUncommitted = before.status === 'ok' && before.paths.includes(target.display);
  return () => {
    if (!wasUncommitted) ctx.reportChangedPaths([target.display]);
  };
}

/**
 * Call before a command that may change any file of the workspace; the returned function, called
 * after it, reports the files git lists as uncommitted now and did not before. Outside a git
 * repository nothing is reported (there is nothing to compare).
 *
 * @example
 * const reportCommand = await trackWorkspaceChanges(ctx, root);
 * await runShellCommand(command, { cwd: root, signal: ctx.signal, timeoutMs, maxOutputBytes });
 * await reportCommand();
 */
export async function trackWorkspaceChanges(
  ctx: ToolContext,
  root: string,
): Promise<() => Promise<void>> {
  const before = await uncommittedPaths(root, { signal: ctx.signal });
  return async () => {
    if (before.status !== 'ok') return;
    const after = await uncommittedPaths(root, { signal: ctx.signal });
    if (after.status !== 'ok') return;
    const wasUncommitted = new Set(before.paths);
    ctx.reportChangedPaths(after.paths.filter((path) => !wasUncommitted.has(path)));
  };
}
