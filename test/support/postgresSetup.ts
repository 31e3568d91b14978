/**
 * Vitest global setup: looks for PostgreSQL's server programs once per run and hands the
 * installation to the tests that start servers (`inject('postgresInstallation')`). Without one
 * they are skipped with one line saying how to run them; under CI the run fails instead.
 */
import type { TestProject } from 'vitest/node';
import { findPostgres, POSTGRES_HINT, type PostgresInstallation } from './findPostgres.js';
import { isCi } from './isCi.js';

/** The files whose tests start a PostgreSQL server, named in the skip line. */
export const POSTGRES_TEST_FILES = [
  'test/support/postgresServer.test.ts',
  'test/persistence/postgresSessionStore.test.ts',
  'test/examples/httpWorkers.test.ts',
  'test/dbos/sessionClient.test.ts',
  'test/dbos/sessionWorker.test.ts',
];

/** The same for `npm run test:workers` (vitest.workers.config.ts). */
export const POSTGRES_WORKER_TEST_FILES = ['test/workers/failover.test.ts'];

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test servers start from, or `null` when the PostgreSQL tests are skipped. */
    postgresInstallation: PostgresInstallation | null;
  }
}

export default function setup(project: TestProject): void {
  const probe = findPostgres();
  if (probe.found) {
    project.provide('postgresInstallation', probe.installation);
    return;
  }
  if (isCi()) {
    throw new Error(
      `CI is set and ${probe.problem}: the PostgreSQL tests cannot run; ${POSTGRES_HINT}`,
    );
  }
  const files = project.config.include.some((pattern) => pattern.startsWith('test/workers/'))
    ? POSTGRES_WORKER_TEST_FILES
    : POSTGRES_TEST_FILES;
  console.warn(
    `Skipping the PostgreSQL tests (${files.join(', ')}): ${probe.problem}; to run them, ${POSTGRES_HINT}`,
  );
  project.provide('postgresInstallation', null);
}
