import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * Gives each test fresh, real temporary directories (real paths, so macOS's /tmp link does not
 * confuse comparisons) and removes them afterwards.
 *
 * @example
 * const dirs = useTempDirs();
 * it('writes', async () => {
 *   const workspace = await dirs.make('ws-');
 * });
 */
export function useTempDirs(): { make(prefix?: string): Promise<string> } {
  let created: string[] = [];
  beforeEach(() => {
    created = [];
  });
  afterEach(async () => {
    await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    async make(prefix = 'agent-statechart-') {
      const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
      created.push(dir);
      return dir;
    },
  };
}
