/**
 * The folder a session store's file lives in, made when missing. The package's own folder,
 * `.agent-statechart/`, ignores itself in git.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AGENT_STATECHART_FOLDER } from '../machine/index.js';

const GITIGNORE = `# Written by agent-statechart: its session store stays out of git.\n*\n`;

/**
 * Makes the folder of the store file at `path`. When it is `.agent-statechart/`, it gets a
 * `.gitignore` that says `*` before the database exists, so neither a person's `git add -A` nor
 * the agent's auto-commit ever picks up the store; a `.gitignore` already there (perhaps edited
 * by its owner) is left alone.
 *
 * @example
 * prepareStoreFolder('/srv/app/.agent-statechart/sessions.db'); // and its .gitignore
 */
export function prepareStoreFolder(path: string): void {
  const folder = dirname(path);
  mkdirSync(folder, { recursive: true });
  if (basename(folder) !== AGENT_STATECHART_FOLDER) return;
  try {
    writeFileSync(join(folder, '.gitignore'), GITIGNORE, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
