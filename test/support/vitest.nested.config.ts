/**
 * The suite's configuration for a nested run that shows how the suite behaves without one system
 * package: only that package's global setup runs (`AGENT_STATECHART_NESTED_SETUP`), so a machine
 * that lacks another package too (PostgreSQL and bubblewrap on a fresh machine) still shows what
 * this one does, under CI as without it.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.js';

export default defineConfig({
  ...suite,
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    ...suite.test,
    globalSetup: [process.env.AGENT_STATECHART_NESTED_SETUP ?? ''].filter(Boolean),
  },
});
