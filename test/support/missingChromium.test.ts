/**
 * A fresh machine without Chromium: the browser tests are skipped with one line saying how to run
 * them, and under CI the run fails instead. Runs vitest itself on the browser test files, with
 * `CHROMIUM_PATH` pointing nowhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER_TEST_FILES } from './testTiers.js';
import { REPOSITORY_ROOT, runVitest } from './runVitest.js';

function vitestWithoutChromium(ci: string): Promise<{ code: number; output: string }> {
  return runVitest(
    BROWSER_TEST_FILES,
    { CHROMIUM_PATH: join(REPOSITORY_ROOT, 'no-such-chromium'), CI: ci },
    'vitest.e2e.config.ts',
  );
}

describe.concurrent('the browser tests on a machine without Chromium', () => {
  it('are skipped with one line naming them and saying how to run them, and the run passes', async () => {
    const { code, output } = await vitestWithoutChromium('');
    expect(code, output).toBe(0);
    const lines = output.split('\n').filter((line) => line.includes('Skipping the browser tests'));
    expect(lines).toHaveLength(1);
    for (const file of BROWSER_TEST_FILES) expect(lines[0]).toContain(file);
    expect(lines[0]).toContain('no-such-chromium: not found');
    expect(lines[0]).toContain(
      'to run them, apt-get install chromium, or set CHROMIUM_PATH=/path/to/chromium',
    );
    expect(output).toMatch(
      new RegExp(
        `Test Files +${BROWSER_TEST_FILES.length} skipped \\(${BROWSER_TEST_FILES.length}\\)`,
      ),
    );
    expect(output).not.toMatch(/\bpassed\b|\bfailed\b/);
  });

  it('fail the run when CI is set, so CI never skips them silently', async () => {
    const { code, output } = await vitestWithoutChromium('true');
    expect(code).not.toBe(0);
    expect(output).toContain('CI is set and no Chromium could be launched');
    expect(output).not.toContain('Skipping the browser tests');
  });
});
