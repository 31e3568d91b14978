/**
 * The package's own folder in a workspace.
 */

/**
 * The folder where session stores are kept by convention (`.agent-statechart/`: the command
 * line's, and any SQLite store's file placed there). It ignores itself in git, and the git
 * auto-commit never commits anything in it.
 *
 * @example
 * join(workspace, AGENT_STATECHART_FOLDER, 'sessions.db');
 */
export const AGENT_STATECHART_FOLDER = '.agent-statechart';
