/**
 * A fresh machine without PostgreSQL: the tests that start a server are skipped with one line
 * saying how to run them, and under CI the run fails instead. Runs vitest itself on those files,
 * with `POSTGRES_BIN_DIR` pointing nowhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTGRES_TEST_FILES } from './postgresSetup.js';
import { NESTED_CONFIG, REPOSITORY_ROOT, runVitest } from './runVitest.js';

const NOWHERE = join(REPOSITORY_ROOT, 'no-such-postgresql/bin');

function vitestWithoutPostgres(ci: string): Promise<{ code: number; output: string }> {
  return runVitest(
    POSTGRES_TEST_FILES,
    {
      POSTGRES_BIN_DIR: NOWHERE,
      CI: ci,
      AGENT_STATECHART_NESTED_SETUP: 'test/support/postgresSetup.ts',
    },
    NESTED_CONFIG,
  );
}

describe.concurrent('the PostgreSQL tests on a machine without PostgreSQL', () => {
  it('are skipped with one line naming them and saying how to run them, and the run passes', async () => {
    const { code, output } = await vitestWithoutPostgres('');
    expect(code, output).toBe(0);
    const lines = output
      .split('\n')
      .filter((line) => line.includes('Skipping the PostgreSQL tests'));
    expect(lines).toHaveLength(1);
    for (const file of POSTGRES_TEST_FILES) expect(lines[0]).toContain(file);
    expect(lines[0]).toContain(`POSTGRES_BIN_DIR=${NOWHERE} has no initdb, pg_ctl, pg_isready`);
    expect(lines[0]).toContain('to run them, apt-get install postgresql');
    const count = POSTGRES_TEST_FILES.length;
    expect(output).toMatch(new RegExp(`Test Files +${count} skipped \\(${count}\\)`));
    expect(output).not.toMatch(/\bpassed\b|\bfailed\b/);
  });

  it('fail the run when CI is set, so CI never skips them silently', async () => {
    const { code, output } = await vitestWithoutPostgres('true');
    expect(code).not.toBe(0);
    expect(output).toContain('CI is set and PostgreSQL is not installed');
    expect(output).not.toContain('Skipping the PostgreSQL tests');
  });
});
