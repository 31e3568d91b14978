/**
 * Bundles a script a test runs as a child process into one file (esbuild, as `npm run build` would
 * compile it, its dependencies left to `node_modules`), so each of many processes starts in a
 * fraction of what tsx takes.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '../..');

/** Where test bundles go: `node_modules/.cache/agent-statechart-tests/`. */
export const TEST_BUNDLES = join(root, 'node_modules', '.cache', 'agent-statechart-tests');

/**
 * Bundles `entryPoints` (paths from the repository root) into `TEST_BUNDLES/<name>/`, one `.mjs`
 * per entry; resolves with the directory.
 *
 * @example
 * const directory = await bundleChild('crash', ['test/agent/crash/streamingChild.ts']);
 * spawn(process.execPath, [join(directory, 'streamingChild.mjs')]);
 */
export async function bundleChild(name: string, entryPoints: string[]): Promise<string> {
  const outdir = join(TEST_BUNDLES, name);
  await build({
    entryPoints: entryPoints.map((entry) => join(root, entry)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return outdir;
}
