/**
 * Which test files run in which command. `npm test` runs the suite a change is checked with as
 * it is made; `npm run test:e2e` runs what drives whole programs (a real browser, npm, TypeDoc)
 * and takes the machine's cores for a while; `.ci/run` runs both, and `npm run test:workers`.
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

/**
 * `npm run test:sdk-transport`: the tests whose model calls go over the transport the suite is
 * told to use (test/support/llmTransport.ts), run once more over the SDK's own streaming, so the
 * transport `npm test` does not pick by default passes them too. The tests that hold the two
 * transports side by side run both in `npm test` already and are not among them.
 */
export const MODEL_CALL_TEST_FILES = [
  'test/actors/llm/streamLlmResponse.test.ts',
  'test/actors/llm/finalMessage.test.ts',
  'test/actors/tools/unconfinedBash.test.ts',
  'test/agent/**/*.test.ts',
  'test/inspect/createStatelyInspector.test.ts',
  'test/persistence/agentHost.test.ts',
  'test/persistence/crashResume.test.ts',
];
