import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The top folder of the git repository `path` is in (the nearest one, up from it, holding a
 * `.git` directory or file), or `null` when there is none or `path` does not exist. Read from the
 * file system without starting git, so it costs a few `stat` calls, whatever the caller does.
 *
 * @example
 * repositoryRoot('/srv/app/src'); // '/srv/app'
 */
export function repositoryRoot(path: string): string | null {
  let folder: string;
  try {
    folder = realpathSync(path);
  } catch {
    // A workspace that does not exist is in no repository; its tools say so when called.
    return null;
  }
  for (;;) {
    if (existsSync(join(folder, '.git'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}
