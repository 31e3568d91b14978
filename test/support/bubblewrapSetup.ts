/**
 * Vitest global setup: checks once per run whether a bubblewrap sandbox can start, asked as the
 * bash tool asks (`probeSandbox`), and tells the sandbox tests (`inject('sandboxUnavailable')`,
 * through ./bubblewrap.ts). Without one they are skipped with one line saying why and how to run
 * them; under CI the run fails instead. `BWRAP_PATH` names the bubblewrap to try instead of `bwrap`
 * on the `PATH` (the one the tool starts); the test of a machine without bubblewrap points it
 * nowhere.
 */
import type { TestProject } from 'vitest/node';
import { probeSandbox } from '../../src/actors/tools/sandbox/probeSandbox.js';
import { isCi } from './isCi.js';

/** The files with tests that need the sandbox, named in the skip line. */
export const BUBBLEWRAP_TEST_FILES = [
  'test/actors/tools/bash.test.ts',
  'test/actors/tools/bashSandbox.test.ts',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why no bubblewrap sandbox can start here, or `null` when the sandbox tests run. */
    sandboxUnavailable: string | null;
  }
}

export default function setup(project: TestProject): void {
  // probeSandbox's sentence says how to fix what it found (`apt-get install bubblewrap`, or
  // the namespaces a container forbids).
  const problem = probeSandbox(process.env.BWRAP_PATH || 'bwrap');
  project.provide('sandboxUnavailable', problem);
  if (problem === null) return;
  if (isCi()) throw new Error(`CI is set and the bash sandbox tests cannot run: ${problem}`);
  console.warn(`Skipping the bash sandbox tests (${BUBBLEWRAP_TEST_FILES.join(', ')}): ${problem}`);
}
