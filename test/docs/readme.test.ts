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

/** Runs a README block with the package names pointed at this checkout's source. */
async function runBlock(code: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'readme-'));
  try {
    const file = join(directory, 'quickStart.mts');
    const source = code
      .replace("from 'agent-statechart/testing'", `from '${join(root, 'src/testing/index.ts')}'`)
      .replace("from 'agent-statechart'", `from '${join(root, 'src/index.ts')}'`);
    await writeFile(file, source);
    const tsx = join(root, 'node_modules/.bin/tsx');
    const { stdout } = await run(tsx, [file], { cwd: root });
    return stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Each `console.log(…); // output` line states what it prints. */
function statedOutput(code: string): string[] {
  return [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1] ?? '');
}

describe('README', () => {
  it('runs the pure-mode quick start as written, printing what its comments say', async () => {
    const code = await quickStart('Quick start: pure mode');
    const expected = statedOutput(code);
    expect(expected).toHaveLength(5);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });

  it('runs the actor-mode quick start as written, printing what its comments say', async () => {
    const code = await quickStart('Quick start: actor mode');
    const expected = statedOutput(code);
    expect(expected).toEqual(['list_files success', 'WaitingForUserInput 4']);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });
});
