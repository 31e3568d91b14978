/**
 * The README is the package's page on the registry, where the repository's files are not: every
 * link in it is absolute (or a heading of the README itself), and every link into the repository
 * names a file of this checkout, and a heading that file has.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Every link and image target of a Markdown text, code blocks left out. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** The anchors GitHub gives a Markdown file's headings. */
function headingAnchors(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set(
    [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
      match[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replaceAll(' ', '-'),
    ),
  );
}

describe('the README on the registry', () => {
  it('links only to absolute addresses, and into the repository only to what is there', async () => {
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      repository: { url: string };
    };
    const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const { pathname } = new URL(repository);
    const intoRepository = [
      `${repository}/blob/main/`,
      `${repository}/tree/main/`,
      `https://raw.githubusercontent.com${pathname}/main/`,
    ];
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const targets = linkTargets(readme);
    expect(targets.length).toBeGreaterThan(10);

    const problems: string[] = [];
    for (const target of targets) {
      if (target.startsWith('#')) {
        if (!headingAnchors(readme).has(target.slice(1)))
          problems.push(`${target}: no such heading`);
        continue;
      }
      if (!/^https:\/\//.test(target)) {
        problems.push(`${target}: not absolute, so broken on the registry's page`);
        continue;
      }
      const prefix = intoRepository.find((start) => target.startsWith(start));
      if (prefix === undefined) continue;
      const [path = '', anchor] = target.slice(prefix.length).split('#');
      const file = join(root, path);
      if (!existsSync(file)) {
        problems.push(`${target}: ${path} is not in the repository`);
      } else if (anchor !== undefined) {
        if (!headingAnchors(await readFile(file, 'utf8')).has(anchor)) {
          problems.push(`${target}: ${path} has no heading #${anchor}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
