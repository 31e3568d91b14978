/**
 * The transport the suite's model calls go over: the package's own switch,
 * `AGENT_STATECHART_TRANSPORT=lean`, `sdk` or `auto`, which every agent created without a
 * `transport` option follows; the tests that build a model client of their own (through these
 * helpers) follow it too. Unset, they get the package's default. CI runs the whole suite once
 * more with `sdk` (`npm run test:sdk-transport`), so both transports pass it.
 */
import type { ClientOptions } from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import {
  llmClientFor,
  type LlmTransportChoice,
  TRANSPORT_ENV,
} from '../../src/actors/llm/llmClientFor.js';
import type { LlmTransport } from '../../src/actors/llm/llmTransport.js';

/**
 * `AGENT_STATECHART_TRANSPORT`, checked: a misspelt value fails the run rather than test the
 * default.
 */
export function testTransport(
  env: NodeJS.ProcessEnv = process.env,
): LlmTransportChoice | undefined {
  const value = env[TRANSPORT_ENV]?.trim() ?? '';
  if (value === '') return undefined;
  if (value === 'auto' || value === 'lean' || value === 'sdk') return value;
  throw new Error(`${TRANSPORT_ENV} is ${JSON.stringify(value)}: use lean, sdk or auto`);
}

/** The model client an agent would stream with for `options` over {@link testTransport}. */
export function testLlmClient(options: ClientOptions): Anthropic | LlmTransport {
  const client = llmClientFor(options, testTransport());
  return typeof client === 'function' ? client() : client;
}
