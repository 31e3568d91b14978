/**
 * Shared set-up for the LLM tests: a local Messages API server per test and a real SDK client
 * pointed at it.
 */

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import type { Message as SdkMessage } from '@anthropic-ai/sdk/resources/messages';
import { afterEach } from 'vitest';
import type { LlmTransport } from '../../../src/actors/llm/llmTransport.js';
import type { StreamedLlmResponse } from '../../../src/actors/llm/messageAccumulator.js';
import type { LlmStreamResult } from '../../../src/actors/llm/streamLlmResponse.js';
import type { LlmError, LlmRequest } from '../../../src/machine/messages.js';
import {
  type MessagesApiServer,
  type Script,
  startMessagesApiServer,
} from '../../../src/testing/index.js';
import { testLlmClient } from '../../support/llmTransport.js';

const running: MessagesApiServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/**
 * Starts a server for this test (closed after it), the model client the suite runs with for it
 * (see test/support/llmTransport.ts) and an SDK client for it, SDK retries off.
 */
export async function serve(
  script: Script,
  clientOptions: { timeout?: number } = {},
): Promise<{ server: MessagesApiServer; client: Anthropic | LlmTransport; sdk: Anthropic }> {
  const server = await startMessagesApiServer({ script });
  running.push(server);
  const options = { baseURL: server.baseURL, apiKey: 'test', ...clientOptions };
  const sdk = new Anthropic({ ...options, maxRetries: 0 });
  return { server, client: testLlmClient(options), sdk };
}

/** A recorded stream from test/fixtures/anthropic-sse. */
export function fixture(name: string): Promise<string> {
  const url = new URL(`../../fixtures/anthropic-sse/${name}`, import.meta.url);
  return readFile(fileURLToPath(url), 'utf8');
}

/** The `data` objects of a recorded stream, parsed independently of the code under test. */
export function fixtureEvents(sse: string): Record<string, unknown>[] {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

export const request: LlmRequest = {
  // A model name the SDK has no deprecation warning for, to keep the output quiet.
  model: 'claude-test-model',
  maxTokens: 1024,
  messages: [{ role: 'user', content: 'hi' }],
};

/** The response of a call that must have succeeded (the test fails with the error otherwise). */
export function responseOf(result: LlmStreamResult): StreamedLlmResponse {
  if (!result.ok) {
    throw new Error(`expected a response, got ${result.error.kind}: ${result.error.message}`);
  }
  return result.response;
}

/** The failure of a call that must have failed. */
export function failureOf(result: LlmStreamResult): { aborted: boolean; error: LlmError } {
  if (result.ok) throw new Error('expected a failure, got a response');
  return { aborted: result.aborted, error: result.error };
}

/** The message-level fields of the SDK's message and of the chart's response, `null` where the stream did not say. */
export function factsOf(sdk: SdkMessage, ours: StreamedLlmResponse) {
  return {
    sdk: {
      id: sdk.id,
      model: sdk.model,
      stopReason: sdk.stop_reason,
      stopSequence: sdk.stop_sequence ?? null,
      stopDetails: sdk.stop_details ?? null,
      container: sdk.container ?? null,
    },
    ours: {
      id: ours.id,
      model: ours.model,
      stopReason: ours.stopReason ?? null,
      stopSequence: ours.stopSequence ?? null,
      stopDetails: ours.stopDetails ?? null,
      container: ours.container ?? null,
    },
  };
}
