/** The README's pure-mode quick start runs as written and prints what its comments say. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

async function quickStart(heading: string): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.split(`## ${heading}`)[1];
  const code = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (code === undefined) throw new Error(`README has no ts block under '## ${heading}'`);
  return code;
}

describe('README', () => {
  it('runs the pure-mode quick start as written', async () => {
    const code = await quickStart('Quick start: pure mode');
    const directory = await mkdtemp(join(tmpdir(), 'readme-'));
    try {
      const file = join(directory, 'quickStart.ts');
      // The only change: the package name points at this checkout's source.
      await writeFile(
        file,
        code.replace("from 'agent-statechart'", `from '${join(root, 'src/index.ts')}'`),
      );
      const tsx = join(root, 'node_modules/.bin/tsx');
      const { stdout } = await run(tsx, [file], { cwd: root });
      // Each `console.log(…); // output` line states what it prints; check every one.
      const expected = [...code.matchAll(/^console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      expect(expected).toHaveLength(5);
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
