import { configDefaults, defineConfig } from 'vitest/config';
import { END_TO_END_TEST_FILES } from './test/support/testTiers.js';

// `npm test`. What drives whole programs (Chromium, npm pack, TypeDoc) runs with
// `npm run test:e2e` (vitest.e2e.config.ts), the many-workers failover with `npm run test:workers`.
export default defineConfig({
  // Code written as a user writes it (examples, docs) imports `agent-statechart`; tsconfig's
  // `paths` point those imports at this checkout's source, as they do for tsc and tsx.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/workers/**', ...END_TO_END_TEST_FILES],
    // Finds PostgreSQL and bubblewrap once for the tests that need them (skipped without them,
    // failing under CI).
    globalSetup: ['test/support/postgresSetup.ts', 'test/support/bubblewrapSetup.ts'],
    // The type tests (test/**/*.test-d.ts) are compiled by `npm run check`, with everything else.
    // A timeout is there to catch a hang, not to time anything: a test or hook that starts
    // processes (a server, a browser, a nested Vitest) can take many seconds on a busy machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // What a page or a process shows comes when it comes: on a busy machine, later than a second.
    expect: { poll: { timeout: 10_000 } },
    // Both cores: left alone, Vitest keeps one for itself and runs the files one at a time here.
    maxWorkers: 2,
    // Test files share a worker's loaded modules instead of loading the package again for each
    // file. The package keeps no module-level mutable state, so nothing leaks from file to file.
    isolate: false,
    // Unhandled rejections fail the run: the package promises none escape to the host.
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
