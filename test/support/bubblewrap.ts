import { probeSandbox } from '../../src/actors/tools/sandbox/probeSandbox.js';

/**
 * Why this machine cannot start a bubblewrap sandbox, or `null` when it can. Tests that need one
 * skip without it, saying so in one line, except in CI (`CI` set), where `.ci/run` installs
 * bubblewrap and its absence fails the run.
 *
 * @example
 * describe.skipIf(sandboxUnavailable !== null)('the sandbox', () => { … });
 */
export const sandboxUnavailable: string | null = probeSandbox('bwrap');

if (sandboxUnavailable !== null) {
  if (process.env.CI !== undefined && process.env.CI !== '') {
    throw new Error(`CI needs a working bubblewrap sandbox: ${sandboxUnavailable}`);
  }
  console.warn(
    `skipping the bash sandbox tests: ${sandboxUnavailable} (they run where bwrap works, and always in CI)`,
  );
}
