/** The README's quick starts run as written and print what their comments say. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readmeBlock, statedOutput } from './readmeBlocks.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/** Runs a README block from this checkout: tsconfig's `paths` point the package at its source. */
async function runBlock(code: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'readme-'));
  try {
    const file = join(directory, 'quickStart.mts');
    await writeFile(file, code);
    const tsx = join(root, 'node_modules/.bin/tsx');
    const { stdout } = await run(tsx, ['--tsconfig', join(root, 'tsconfig.json'), file], {
      cwd: root,
    });
    return stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('README', () => {
  it('runs the pure-mode quick start as written, printing what its comments say', async () => {
    const code = await readmeBlock('Quick start: pure mode');
    const expected = statedOutput(code);
    expect(expected).toHaveLength(5);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });

  it('runs the actor-mode quick start as written, printing what its comments say', async () => {
    const code = await readmeBlock('Quick start: actor mode');
    const expected = statedOutput(code);
    expect(expected).toEqual(['list_files success', 'WaitingForUserInput 4']);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });
});
