/**
 * The transport the suite's model calls go over: `TEST_LLM_TRANSPORT=lean`, `sdk` or `auto` runs
 * the tests that build their own model client (through these helpers) with that one; unset, they
 * get the package's default. CI runs the model-call tests once more with the SDK's streaming (see
 * `vitest.sdkTransport.config.ts`), so both transports pass them.
 */
import type { ClientOptions } from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import { llmClientFor, type LlmTransportChoice } from '../../src/actors/llm/llmClientFor.js';
import type { LlmTransport } from '../../src/actors/llm/llmTransport.js';

/** `TEST_LLM_TRANSPORT`, checked: a misspelt value fails the run rather than test the default. */
export function testTransport(
  env: NodeJS.ProcessEnv = process.env,
): LlmTransportChoice | undefined {
  const value = env.TEST_LLM_TRANSPORT?.trim() ?? '';
  if (value === '') return undefined;
  if (value === 'auto' || value === 'lean' || value === 'sdk') return value;
  throw new Error(`TEST_LLM_TRANSPORT is ${JSON.stringify(value)}: use lean, sdk or auto`);
}

/** The model client an agent would stream with for `options` over {@link testTransport}. */
export function testLlmClient(options: ClientOptions): Anthropic | LlmTransport {
  const client = llmClientFor(options, testTransport());
  return typeof client === 'function' ? client() : client;
}
