/**
 * Post-tools hooks: what runs after a response's tool calls changed the workspace.
 *
 * @example
 * import { gitAutoCommit } from './actors/hooks/index.js';
 *
 * const { actionTaken } = await gitAutoCommit({ workspace, completedTools });
 */
export { type CommitMessageInfo, formatCommitMessage } from './formatCommitMessage.js';
export {
  DEFAULT_COMMIT_IDENTITY,
  type GitAutoCommitOptions,
  type GitAutoCommitResult,
  gitAutoCommit,
} from './gitAutoCommit.js';
export { type GitRun, type RunGitOptions, runGit } from './runGit.js';
