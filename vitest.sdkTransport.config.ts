import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { MODEL_CALL_TEST_FILES } from './test/support/testTiers.js';

// `npm run test:sdk-transport`: the tests that call the model, with the calls over the SDK's own
// streaming instead of the lean transport `npm test` runs them over (see
// test/support/llmTransport.ts). Run as `npm test` runs its files.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: MODEL_CALL_TEST_FILES,
    exclude: [...configDefaults.exclude, 'test/agent/transportOption.test.ts'],
    env: { TEST_LLM_TRANSPORT: 'sdk' },
  },
});
