import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // Code written as a user writes it (examples, docs) imports `agent-statechart`; tsconfig's
  // `paths` point those imports at this checkout's source, as they do for tsc and tsx.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['test/**/*.test.ts'],
    // The many-workers failover test runs on its own: npm run test:workers.
    exclude: [...configDefaults.exclude, 'test/workers/**'],
    // Finds Chromium and PostgreSQL once for the tests that need them (skipped without them,
    // failing under CI).
    globalSetup: ['test/support/chromiumSetup.ts', 'test/support/postgresSetup.ts'],
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    testTimeout: 20_000,
    // Unhandled rejections fail the run: the package promises none escape to the host.
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
