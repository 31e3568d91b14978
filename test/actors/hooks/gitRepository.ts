import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Git with no user or system configuration (so no identity is configured unless a test sets one),
 * no GIT_* variables leaking in from the host, and no repository discovery above the temp dir.
 *
 * @example
 * const env = isolatedGitEnv(dirname(workspace));
 */
export function isolatedGitEnv(ceiling: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CEILING_DIRECTORIES: ceiling,
  };
}

/**
 * A git repository in `workspace` holding `files`, committed once unless `commit` is false.
 * Returns a `git` that runs there with {@link isolatedGitEnv}.
 *
 * @example
 * const { git, env } = await initRepository(workspace, { 'a.txt': 'first\n' });
 * git('status', '--porcelain');
 */
export async function initRepository(
  workspace: string,
  files: Record<string, string>,
  options: { commit?: boolean } = {},
): Promise<{ env: NodeJS.ProcessEnv; git: (...args: string[]) => string }> {
  const env = isolatedGitEnv(dirname(workspace));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: workspace, env, encoding: 'utf8' });
  git('init', '--quiet');
  for (const [name, content] of Object.entries(files))
    await writeFile(join(workspace, name), content);
  if (options.commit ?? true) {
    git('add', '--all');
    git(
      '-c',
      'user.name=Setup',
      '-c',
      'user.email=setup@example.com',
      'commit',
      '--quiet',
      '-m',
      'initial',
    );
  }
  return { env, git };
}
