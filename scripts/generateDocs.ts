/**
 * Regenerates every generated doc: `docs/state-machine.md`, `docs/state-machine.svg` and the API
 * reference in `docs/api/`. Run it after changing the chart or any TSDoc:
 *
 *     npx tsx scripts/generateDocs.ts
 *
 * `test/docs/generatedDocs.test.ts` fails while a committed doc differs from what this writes.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATED_API_DIRECTORY, generatedDocs } from './docs/generatedDocs.js';

/**
 * The command that regenerates the docs, for messages that tell people to run it.
 *
 * @example
 * throw new Error(`docs/state-machine.md is stale: run ${DOCS_COMMAND}`);
 */
export const DOCS_COMMAND = 'npx tsx scripts/generateDocs.ts';

/**
 * Writes every generated doc under `root` and deletes API pages of symbols that are gone;
 * resolves to the paths written.
 *
 * @example
 * await writeGeneratedDocs(process.cwd());
 */
export async function writeGeneratedDocs(root: string): Promise<string[]> {
  const docs = await generatedDocs(root);
  for (const file of await listFiles(join(root, GENERATED_API_DIRECTORY))) {
    if (!docs.has(relative(root, file).split('\\').join('/'))) await rm(file);
  }
  for (const [path, content] of docs) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return [...docs.keys()];
}

/**
 * Every file below `directory` (none if it does not exist), sorted.
 *
 * @example
 * await listFiles('docs/api'); // ['docs/api/README.md', …]
 */
export async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? listFiles(join(directory, entry.name))
        : Promise.resolve([join(directory, entry.name)]),
    ),
  );
  return nested.flat().sort();
}

// Run only when executed (`tsx scripts/generateDocs.ts`), not when a test imports this module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeGeneratedDocs(resolve(import.meta.dirname, '..')).then(
    (paths) => {
      for (const path of paths) console.log(`wrote ${path}`);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
