import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { END_TO_END_TEST_FILES } from './test/support/testTiers.js';

// `npm run test:e2e`: real Chromium driving the inspector page and rendering the diagrams, the
// package packed and installed into a scratch project, `npm start` at its own pace, the generated
// docs against TypeDoc. Run as `npm test` runs its files.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: END_TO_END_TEST_FILES,
    exclude: configDefaults.exclude,
    // Finds Chromium once for the browser tests (skipped without it, failing under CI).
    globalSetup: ['test/support/chromiumSetup.ts'],
  },
});
