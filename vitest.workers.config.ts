import { defineConfig } from 'vitest/config';

// The many-workers failover test (npm run test:workers): real processes and a real PostgreSQL,
// run on its own because it takes the machine's cores for a while; and the tests of a worker in
// the test's own process, which need a process of their own (DBOS is one per process).
export default defineConfig({
  test: {
    include: ['test/workers/**/*.test.ts'],
    // One file at a time, each in a fresh process: the failover test times what it measures.
    fileParallelism: false,
    isolate: true,
    globalSetup: ['test/support/postgresSetup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
