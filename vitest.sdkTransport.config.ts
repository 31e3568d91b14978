import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:sdk-transport`: the whole suite of `npm test` once more, with every model call
// over the SDK's own streaming instead of the lean transport (the package's own switch,
// AGENT_STATECHART_TRANSPORT, which agents created without a `transport` option follow).
export default defineConfig({
  ...base,
  test: { ...base.test, env: { AGENT_STATECHART_TRANSPORT: 'sdk' } },
});
