/**
 * Every TypeScript block of the README and of `docs/*.md` type-checks against the package: the
 * blocks are compiled as modules with the repository's compiler options, where `agent-statechart`
 * and its subpaths resolve to the source (tsconfig's `paths`). A block that deliberately shows a
 * fragment opts out with `<!-- fragment: not type-checked -->` on the line before its fence.
 * The generated API reference (`docs/api/`) is left out: its blocks are TSDoc examples.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsBlocks } from './readmeBlocks.js';

const root = resolve(import.meta.dirname, '../..');
const OPT_OUT = '<!-- fragment: not type-checked -->';

/**
 * Names a block may use without defining them: the things a guide's reader already has in hand
 * when a short block continues from an earlier one. Declared as globals, so a block that
 * defines or imports the same name uses its own.
 */
const SNIPPET_GLOBALS = `
import type { Agent, AgentAction, AgentCore } from 'agent-statechart';
declare global {
  /** An agent made by createAgent, as in the guide's first example. */
  const agent: Agent;
  /** An AgentCore, as in the pure-mode guide's first example. */
  const core: AgentCore;
  /** Pure mode's caller: carries out the actions (calls the model, runs tools, …). */
  function perform(actions: AgentAction[]): void;
  /** The directory an agent works in. */
  const workspace: string;
}
export {};
`;

interface Snippet {
  /** Where the block starts, as `file:line`. */
  where: string;
  line: number;
  fileName: string;
  code: string;
}

async function collectSnippets(): Promise<{ snippets: Snippet[]; optedOut: string[] }> {
  const documents = [
    'README.md',
    ...(await readdir(join(root, 'docs')))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const snippets: Snippet[] = [];
  const optedOut: string[] = [];
  for (const document of documents) {
    const markdown = await readFile(join(root, document), 'utf8');
    const lines = markdown.split('\n');
    for (const block of tsBlocks(markdown)) {
      const where = `${document}:${block.line}`;
      // The fence is on the line before the code; the marker on the line before the fence.
      if (lines[block.line - 3]?.trim() === OPT_OUT) {
        optedOut.push(where);
        continue;
      }
      const name = `${document.replace(/[/.]/g, '_')}_${block.line}.mts`;
      snippets.push({
        where,
        line: block.line,
        fileName: join(root, '.snippets', name),
        code: block.code,
      });
    }
  }
  return { snippets, optedOut };
}

/** Type errors of the snippets, each as `file:line: TSnnnn message`. */
function typeErrors(snippets: Snippet[]): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
  const virtual = new Map(snippets.map((snippet) => [snippet.fileName, snippet.code]));
  const globalsFile = join(root, '.snippets', 'snippetGlobals.d.mts');
  virtual.set(globalsFile, SNIPPET_GLOBALS);

  const host = ts.createCompilerHost(options);
  const readFromDisk = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, create) => {
    const text = virtual.get(fileName);
    return text === undefined
      ? readFromDisk(fileName, language, onError, create)
      : ts.createSourceFile(fileName, text, language, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  const readText = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName) ?? readText(fileName);

  const program = ts.createProgram([...virtual.keys()], options, host);
  const byFile = new Map(snippets.map((snippet) => [snippet.fileName, snippet]));
  const errors: string[] = [];
  // Only the snippets' own diagnostics: the package's source is type-checked by `tsc` already.
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...snippets.flatMap((snippet) => {
      const file = program.getSourceFile(snippet.fileName);
      return file === undefined
        ? []
        : [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    }),
  ];
  for (const diagnostic of diagnostics) {
    const snippet = diagnostic.file && byFile.get(diagnostic.file.fileName);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (snippet === undefined || diagnostic.file === undefined) {
      errors.push(`${diagnostic.file?.fileName ?? '(options)'}: TS${diagnostic.code} ${message}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    errors.push(
      `${snippet.where.split(':')[0]}:${snippet.line + line}: TS${diagnostic.code} ${message}`,
    );
  }
  return errors;
}

describe('documentation snippets', () => {
  it('type-check against the package, every ts block of the README and docs/*.md', async () => {
    const { snippets, optedOut } = await collectSnippets();
    expect(snippets.length).toBeGreaterThan(20);
    // Opting out is for a deliberate fragment, and rare.
    expect(optedOut.length).toBeLessThanOrEqual(3);
    expect(typeErrors(snippets)).toEqual([]);
  }, 60_000);
});
