/**
 * Shared set-up for the LLM tests: a local Messages API server per test and a real SDK client
 * pointed at it.
 */

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach } from 'vitest';
import type { StreamedLlmResponse } from '../../../src/actors/llm/messageAccumulator.js';
import type { LlmStreamResult } from '../../../src/actors/llm/streamLlmResponse.js';
import type { LlmError, LlmRequest } from '../../../src/machine/types.js';
import {
  type MessagesApiServer,
  type Script,
  startMessagesApiServer,
} from '../../../src/testing/index.js';

const running: MessagesApiServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** Starts a server for this test (closed after it) and a client with SDK retries off. */
export async function serve(
  script: Script,
  clientOptions: { timeout?: number } = {},
): Promise<{ server: MessagesApiServer; client: Anthropic }> {
  const server = await startMessagesApiServer({ script });
  running.push(server);
  const client = new Anthropic({
    baseURL: server.baseURL,
    apiKey: 'test',
    maxRetries: 0,
    ...clientOptions,
  });
  return { server, client };
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
