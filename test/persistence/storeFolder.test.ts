/**
 * A SQLite store makes the folder of its file; the package's own folder, `.agent-statechart/`,
 * ignores itself in git, as the command line's always did, so neither `git add -A` nor the
 * agent's auto-commit takes a session store into a repository.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSqliteSessionStore } from '../../src/index.js';

const run = promisify(execFile);

async function repository(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'store-folder-'));
  onTestFinished(() => rm(directory, { recursive: true, force: true }));
  await run('git', ['init', '-q'], { cwd: directory });
  return directory;
}

const untracked = async (cwd: string) =>
  (await run('git', ['status', '--porcelain', '--untracked-files=all'], { cwd })).stdout;

describe('a SQLite store in .agent-statechart/', () => {
  it('ignores itself in git, from before the database exists', async () => {
    const root = await repository();
    const store = createSqliteSessionStore({ path: join(root, '.agent-statechart/sessions.db') });
    expect(await readFile(join(root, '.agent-statechart/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(await untracked(root)).toBe('');
    await store.close();
  });

  it('leaves a .gitignore of its owner alone, and any other folder without one', async () => {
    const root = await repository();
    await mkdir(join(root, '.agent-statechart'));
    await writeFile(join(root, '.agent-statechart/.gitignore'), 'sessions.db*\n');
    const stores = [
      createSqliteSessionStore({ path: join(root, '.agent-statechart/sessions.db') }),
      createSqliteSessionStore({ path: join(root, 'data/sessions.db') }),
    ];
    expect(await readFile(join(root, '.agent-statechart/.gitignore'), 'utf8')).toBe(
      'sessions.db*\n',
    );
    // The owner's .gitignore shows, and the other folder's database with its journal files.
    const seen = (await untracked(root)).split('\n').filter(Boolean);
    expect(seen.filter((line) => !line.startsWith('?? data/sessions.db'))).toEqual([
      '?? .agent-statechart/.gitignore',
    ]);
    expect(seen).toContain('?? data/sessions.db');
    for (const store of stores) await store.close();
  });
});
