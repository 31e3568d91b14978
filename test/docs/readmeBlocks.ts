import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/**
 * A fenced TypeScript block of a Markdown file, with the line its code starts on.
 *
 * @example
 * const block: CodeBlock = { code: "import { createAgent } from 'agent-statechart';\n", line: 12 };
 */
export interface CodeBlock {
  code: string;
  line: number;
}

/**
 * Every ```` ```ts ```` block of a Markdown text, in order.
 *
 * @example
 * tsBlocks('# A\n\n```ts\nconst a = 1;\n```\n'); // [{ code: 'const a = 1;\n', line: 4 }]
 */
export function tsBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    blocks.push({ code: match[1] ?? '', line });
  }
  return blocks;
}

/**
 * The first TypeScript block of the README under `## heading`.
 *
 * @example
 * const code = await readmeBlock('Quick start: actor mode');
 */
export async function readmeBlock(heading: string): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.split(`\n## ${heading}\n`)[1];
  const block = section === undefined ? undefined : tsBlocks(section)[0];
  if (block === undefined) throw new Error(`README has no ts block under '## ${heading}'`);
  return block.code;
}

/**
 * What a block says it prints: the comment after each `console.log(…); // output` line.
 *
 * @example
 * statedOutput("console.log(core.state); // CallingLlm\n"); // ['CallingLlm']
 */
export function statedOutput(code: string): string[] {
  return [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1] ?? '');
}
