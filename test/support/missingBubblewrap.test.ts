/**
 * A fresh machine without bubblewrap (`npm install && npm test` with only Node and npm): the bash
 * sandbox tests are skipped with one line saying how to run them, and under CI the run fails
 * instead. Runs vitest itself on the files that hold them, with `BWRAP_PATH` pointing nowhere.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUBBLEWRAP_TEST_FILES } from './bubblewrapSetup.js';
import { NESTED_CONFIG, REPOSITORY_ROOT, runVitest } from './runVitest.js';

const NOWHERE = join(REPOSITORY_ROOT, 'no-such-bwrap');

function vitestWithoutBubblewrap(ci: string): Promise<{ code: number; output: string }> {
  return runVitest(
    BUBBLEWRAP_TEST_FILES,
    {
      BWRAP_PATH: NOWHERE,
      CI: ci,
      AGENT_STATECHART_NESTED_SETUP: 'test/support/bubblewrapSetup.ts',
    },
    NESTED_CONFIG,
  );
}

describe.concurrent('the bash sandbox tests on a machine without bubblewrap', () => {
  it('are skipped with one line naming them and saying how to run them, and the run passes', async () => {
    const { code, output } = await vitestWithoutBubblewrap('');
    expect(code, output).toBe(0);
    const lines = output
      .split('\n')
      .filter((line) => line.includes('Skipping the bash sandbox tests'));
    expect(lines).toHaveLength(1);
    for (const file of BUBBLEWRAP_TEST_FILES) expect(lines[0]).toContain(file);
    expect(lines[0]).toContain(
      `bubblewrap ('${NOWHERE}') is not installed; install it (Debian and Ubuntu: apt-get install bubblewrap)`,
    );
    // bashSandbox.test.ts is all sandbox; bash.test.ts runs its unconfined half.
    expect(output).toMatch(/Test Files +1 passed \| 1 skipped \(2\)/);
    expect(output).toMatch(/Tests +\d+ passed \| \d+ skipped/);
    expect(output).not.toMatch(/\bfailed\b/);
  });

  it('fail the run when CI is set, so CI never skips them silently', async () => {
    const { code, output } = await vitestWithoutBubblewrap('true');
    expect(code).not.toBe(0);
    expect(output).toContain(
      `CI is set and the bash sandbox tests cannot run: bubblewrap ('${NOWHERE}') is not installed`,
    );
    // (The error's code frame may show the line that would have said so.)
    expect(output).not.toMatch(/^Skipping the bash sandbox tests/m);
  });

  it('name every file whose tests wait for the sandbox', async () => {
    const test = join(REPOSITORY_ROOT, 'test');
    const waiting: string[] = [];
    for (const entry of await readdir(test, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
      const path = join(entry.parentPath, entry.name);
      if (/from '(?:\.\.\/)+support\/bubblewrap\.js'/.test(await readFile(path, 'utf8'))) {
        waiting.push(relative(REPOSITORY_ROOT, path));
      }
    }
    expect(waiting.sort()).toEqual([...BUBBLEWRAP_TEST_FILES].sort());
  });
});
