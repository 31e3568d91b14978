import { defineConfig } from 'vitest/config';

// The many-workers failover test (npm run test:workers): real processes and a real PostgreSQL,
// run on its own because it takes the machine's cores for a while.
export default defineConfig({
  test: {
    include: ['test/workers/**/*.test.ts'],
    globalSetup: ['test/support/postgresSetup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
