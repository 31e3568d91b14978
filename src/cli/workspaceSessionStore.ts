/**
 * Where the command line keeps sessions: by default one SQLite file per workspace,
 * `.agent-statechart/sessions.db`, in a folder that ignores itself in git (its own `.gitignore`
 * says `*`), so neither a person's `git add -A` nor the agent's auto-commit ever picks it up.
 * `--store PATH` names another file.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AGENT_STATECHART_FOLDER } from '../machine/index.js';
import { AgentStatechartError } from '../machine/index.js';
import { createSqliteSessionStore, type SessionStore } from '../persistence/index.js';

/** The folder, inside the workspace, that holds the default store. */
export const SESSIONS_FOLDER = AGENT_STATECHART_FOLDER;

/** The default store's file name inside {@link SESSIONS_FOLDER}. */
export const SESSIONS_FILE = 'sessions.db';

/**
 * Where the sessions are: `--store PATH` when given, else the workspace's default file.
 *
 * @example
 * sessionStorePath({ workspace: '/repo' }); // '/repo/.agent-statechart/sessions.db'
 */
export function sessionStorePath(options: { workspace: string; store?: string }): string {
  return options.store === undefined
    ? join(options.workspace, SESSIONS_FOLDER, SESSIONS_FILE)
    : resolve(options.store);
}

/**
 * Opens the store a command writes to, creating it if needed (the default folder with its
 * `.gitignore`, before the database exists).
 *
 * @example
 * const { store, path } = openSessionStore({ workspace: process.cwd() });
 */
export function openSessionStore(options: { workspace: string; store?: string }): {
  store: SessionStore;
  path: string;
} {
  const path = sessionStorePath(options);
  // The store makes its folder, and the default one ignores itself in git.
  return { store: createSqliteSessionStore({ path }), path };
}

/**
 * Opens a store a command only reads: refused with `SESSION_NOT_FOUND` when the file does not
 * exist, rather than creating an empty database.
 *
 * @example
 * const { store } = openExistingSessionStore({ workspace: process.cwd() });
 */
export function openExistingSessionStore(options: { workspace: string; store?: string }): {
  store: SessionStore;
  path: string;
} {
  const path = sessionStorePath(options);
  if (!existsSync(path)) {
    throw new AgentStatechartError(
      'SESSION_NOT_FOUND',
      `there is no session store at ${path} (sessions are kept there by \`agent-statechart run --session NAME\`${options.store === undefined ? ' in this workspace; pass --workspace DIR or --store PATH to look elsewhere' : ''})`,
    );
  }
  return { store: createSqliteSessionStore({ path }), path };
}

/**
 * What the command line says of a session the store at `path` does not hold.
 *
 * @example
 * io.err(noSuchSession('fix-tests', '/repo/.agent-statechart/sessions.db'));
 */
export function noSuchSession(sessionId: string, path: string): string {
  return `there is no session '${sessionId}' in ${path}`;
}
