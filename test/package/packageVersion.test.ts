/**
 * The package loads bundled into one file, away from its package.json (as an application's bundle
 * and the command's test bundle put it), and still knows its version. (That the version is
 * package.json's is test/persistence/sessionVersion.test.ts's.)
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/persistence/index.js';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('PACKAGE_VERSION', () => {
  it('is there when the package is bundled into a file far from its package.json', async () => {
    // Inside node_modules, so the dependencies left out of the bundle resolve as in an
    // application; two folders up from it there is no package.json.
    const directory = join(root, 'node_modules', '.cache', 'agent-statechart-tests', 'version');
    await mkdir(directory, { recursive: true });
    try {
      const entry = join(directory, 'entry.ts');
      await writeFile(
        entry,
        `import { PACKAGE_VERSION } from ${JSON.stringify(join(root, 'src/persistence/index.js'))};\nconsole.log(PACKAGE_VERSION);\n`,
      );
      const outfile = join(directory, 'bundle.mjs');
      await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        packages: 'external',
        outfile,
        logLevel: 'error',
      });
      const { stdout } = await run(process.execPath, [outfile]);
      expect(stdout.trim()).toBe(PACKAGE_VERSION);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
