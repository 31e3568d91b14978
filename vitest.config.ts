import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds Chromium once for the browser tests (skipped without one, failing under CI).
    globalSetup: ['test/support/chromiumSetup.ts'],
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
