/**
 * Vitest global setup: looks for Chromium once per run and hands its path to the browser tests
 * (`inject('chromiumPath')`). Without one they are skipped with one line saying how to run them;
 * under CI the run fails instead.
 */
import type { TestProject } from 'vitest/node';
import { CHROMIUM_HINT, findChromium } from './findChromium.js';
import { isCi } from './isCi.js';
import { BROWSER_TEST_FILES } from './testTiers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Chromium's executable, or `null` when the browser tests are skipped. */
    chromiumPath: string | null;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const probe = await findChromium();
  if (probe.found) {
    project.provide('chromiumPath', probe.path);
    return;
  }
  if (isCi()) {
    throw new Error(
      `CI is set and ${probe.problem}: the browser tests cannot run; ${CHROMIUM_HINT}`,
    );
  }
  console.warn(
    `Skipping the browser tests (${BROWSER_TEST_FILES.join(', ')}): ${probe.problem}; to run them, ${CHROMIUM_HINT}`,
  );
  project.provide('chromiumPath', null);
}
