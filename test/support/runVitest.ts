/**
 * Runs vitest itself in a child process on some test files with a changed environment, for the
 * tests of how the suite behaves on a machine without a system package.
 *
 * @example
 * const { code, output } = await runVitest(['test/x.test.ts'], { CI: 'true' });
 * const e2e = await runVitest(['test/y.test.ts'], {}, 'vitest.e2e.config.ts');
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export const REPOSITORY_ROOT = join(import.meta.dirname, '../..');

/** The configuration of a nested run that sets up one system package only. */
export const NESTED_CONFIG = 'test/support/vitest.nested.config.ts';

export function runVitest(
  files: string[],
  env: NodeJS.ProcessEnv,
  config = 'vitest.config.ts',
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(REPOSITORY_ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        config,
        '--typecheck.enabled=false',
        ...files,
      ],
      { cwd: REPOSITORY_ROOT, env: { ...process.env, ...env, NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr });
      },
    );
  });
}
