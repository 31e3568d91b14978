/**
 * The API reference, generated from the TSDoc of the package's entry points by TypeDoc with
 * typedoc-plugin-markdown, returned as files rather than written, so a test can compare them with
 * the committed ones.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Application, type TypeDocOptions } from 'typedoc';
import type { PluginOptions } from 'typedoc-plugin-markdown';

/** The entry points documented: the package's exports, and the diagram functions. */
export const API_ENTRY_POINTS = [
  'src/index.ts',
  'src/testing/index.ts',
  'src/diagram/index.ts',
  'src/dbos/index.ts',
];

/**
 * Runs TypeDoc over the entry points and returns the Markdown pages, keyed by path relative to
 * `docs/api/`. Deterministic: no source links (their line numbers would churn with every edit),
 * no dates, no generator banner.
 *
 * @example
 * const pages = await renderApiReference('/path/to/repo');
 * console.log([...pages.keys()]); // ['README.md', 'diagram.md', …]
 */
export async function renderApiReference(root: string): Promise<Map<string, string>> {
  const out = await mkdtemp(join(tmpdir(), 'agent-statechart-api-'));
  try {
    const options: Partial<TypeDocOptions & PluginOptions> = {
      entryPoints: API_ENTRY_POINTS.map((entry) => join(root, entry)),
      tsconfig: join(root, 'tsconfig.build.json'),
      plugin: ['typedoc-plugin-markdown'],
      out,
      readme: 'none',
      name: 'agent-statechart',
      disableSources: true,
      excludePrivate: true,
      excludeInternal: true,
      hideGenerator: true,
      hidePageHeader: true,
      hideBreadcrumbs: true,
      outputFileStrategy: 'modules',
      useCodeBlocks: true,
      parametersFormat: 'table',
      interfacePropertiesFormat: 'table',
      classPropertiesFormat: 'table',
      enumMembersFormat: 'table',
      typeDeclarationFormat: 'table',
      sort: ['kind', 'alphabetical'],
      logLevel: 'Warn',
      // The docs describe the code as it is; a warning (an unresolved link) is not fatal here.
      treatWarningsAsErrors: false,
      skipErrorChecking: true,
    };
    const app = await Application.bootstrapWithPlugins(options);
    const project = await app.convert();
    if (project === undefined) throw new Error('TypeDoc could not convert the entry points');
    await app.generateOutputs(project);
    const pages = new Map<string, string>();
    for (const file of await listFiles(out)) {
      pages.set(relative(out, file).split('\\').join('/'), await readFile(file, 'utf8'));
    }
    return pages;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(directory, entry.name);
      return entry.isDirectory() ? listFiles(path) : Promise.resolve([path]);
    }),
  );
  return files.flat().sort();
}
