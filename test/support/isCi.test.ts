/**
 * One meaning of "under CI" for every test that needs a system package or takes a size from the
 * environment, and `.ci/run` always under it.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isCi } from './isCi.js';
import { REPOSITORY_ROOT } from './runVitest.js';
import { testSize } from './testSize.js';

describe('isCi', () => {
  it('is CI when CI is set to anything but empty, false or 0', () => {
    for (const value of ['true', '1', 'yes', 'TRUE', 'woodpecker']) {
      expect(isCi({ CI: value }), value).toBe(true);
    }
    for (const value of [undefined, '', ' ', 'false', 'False', '0']) {
      expect(isCi({ CI: value }), String(value)).toBe(false);
    }
  });

  it('holds for the suites .ci/run runs, whatever CI the environment carried into it', async () => {
    // The lines of .ci/run that set CI, run as bash runs them before the suites start.
    const script = await readFile(join(REPOSITORY_ROOT, '.ci/run'), 'utf8');
    const setsCi = script.split('\n').filter((line) => /^\s*(export\s+)?CI=/.test(line));
    expect(setsCi.length).toBeGreaterThan(0);
    for (const inherited of [undefined, '', 'false', '0', 'true']) {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
      if (inherited !== undefined) env.CI = inherited;
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', `${setsCi.join('\n')}\nprintf %s "$CI"`],
        { env },
      );
      expect(isCi({ CI: stdout }), `CI=${inherited} inherited, ${stdout} set`).toBe(true);
    }
  });
});

describe('testSize', () => {
  it('takes a size from the environment, the default without one', () => {
    expect(testSize('RUNS', 200, {})).toBe(200);
    expect(testSize('RUNS', 200, { RUNS: '' })).toBe(200);
    expect(testSize('RUNS', 200, { RUNS: '20' })).toBe(20);
    expect(testSize('RUNS', 200, { RUNS: '500' })).toBe(500);
    expect(testSize('RUNS', 200, { RUNS: '20', CI: 'false' })).toBe(20);
  });

  it('never shrinks a suite under CI, and may grow it', () => {
    expect(testSize('RUNS', 200, { RUNS: '20', CI: 'true' })).toBe(200);
    expect(testSize('RUNS', 200, { RUNS: '1', CI: '1' })).toBe(200);
    expect(testSize('RUNS', 200, { RUNS: '500', CI: 'true' })).toBe(500);
  });

  it('refuses a size that is not a whole number of at least 1, so a typo cannot run nothing', () => {
    for (const value of ['0', '-3', '2.5', 'lots', '1e400', 'NaN']) {
      expect(() => testSize('RUNS', 200, { RUNS: value })).toThrow(
        `RUNS must be a whole number of at least 1; got '${value}'`,
      );
    }
  });
});
