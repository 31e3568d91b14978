/**
 * Which test files run in which command. `npm test` runs the suite a change is checked with as
 * it is made; `npm run test:e2e` runs what drives whole programs (a real browser, npm, TypeDoc)
 * and takes the machine's cores for a while; `.ci/run` runs both, `npm test` once more over the
 * SDK's own streaming (`npm run test:sdk-transport`), and `npm run test:workers`.
 */

/** The files whose tests need Chromium, named in the line that says they were skipped. */
export const BROWSER_TEST_FILES = [
  'test/diagram/browserRendering.test.ts',
  'test/inspect/inspectorPage.test.ts',
  'test/inspect/inspectorPageLoad.test.ts',
  'test/inspect/storedSessionPage.test.ts',
  'test/inspect/statelyRelayPage.test.ts',
];

/**
 * `npm run test:e2e`: the browser tests and how they skip without a browser, the packed package,
 * `npm start` at its own pace, and the generated docs against what TypeDoc makes of the source.
 */
export const END_TO_END_TEST_FILES = [
  ...BROWSER_TEST_FILES,
  'test/support/missingChromium.test.ts',
  'test/package/packedPackage.test.ts',
  'test/cli/npmStart.test.ts',
  'test/docs/generatedDocs.test.ts',
];
