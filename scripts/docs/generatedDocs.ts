/**
 * Every generated file under `docs/`, rendered in memory: the docs script writes them, and a test
 * compares them with the committed ones.
 */
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { renderApiReference } from './renderApiReference.js';
import { renderStateMachinePage } from './renderStateMachinePage.js';

/** The folder (relative to the repository) whose files are all generated. */
export const GENERATED_API_DIRECTORY = 'docs/api';

/**
 * Renders every generated doc. Keys are paths relative to the repository root; Markdown is
 * formatted with the repository's Prettier settings, so `prettier --check` agrees with it.
 *
 * @example
 * const docs = await generatedDocs(process.cwd());
 * for (const [path, content] of docs) console.log(path, content.length);
 */
export async function generatedDocs(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [path, content] of await renderStateMachinePage()) files.set(`docs/${path}`, content);
  for (const [path, content] of await renderApiReference(root)) {
    files.set(`${GENERATED_API_DIRECTORY}/${path}`, content);
  }
  for (const [path, content] of files) {
    if (!path.endsWith('.md')) continue;
    const options = await resolveConfig(join(root, path));
    files.set(path, await format(content, { ...options, filepath: join(root, path) }));
  }
  return files;
}
