/**
 * createAgent's `transport`: which way the model calls go, told apart on the wire by the headers
 * Node's `fetch` adds to every request (the SDK's streaming) and the lean transport does not send,
 * and the options it refuses before anything starts.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  llmClientFor,
  resolveLlmTransport,
  TRANSPORT_ENV,
} from '../../src/actors/llm/llmClientFor.js';
import { AgentStatechartError, createAgent, type CreateAgentOptions } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** Which transport carried the session's one model call. */
async function transportOf(options: CreateAgentOptions): Promise<'lean' | 'sdk'> {
  session = await startSession([reply('Hello from the model.')], { autoCommit: false, ...options });
  session.agent.send('hi');
  await session.agent.waitUntilIdle({ timeoutMs: 30_000 });
  expect(session.notes.text.map(({ text }) => text).join('')).toBe('Hello from the model.');
  const [sent] = session.server.requests;
  return sent?.headers['sec-fetch-mode'] === undefined ? 'lean' : 'sdk';
}

function refusal(options: CreateAgentOptions): AgentStatechartError {
  try {
    createAgent({ autoCommit: false, ...options });
  } catch (error) {
    if (error instanceof AgentStatechartError) return error;
    throw error;
  }
  throw new Error('expected createAgent to refuse the options');
}

describe("createAgent's transport", () => {
  it.each(['lean', 'sdk'] as const)("'%s' streams the model calls that way", async (transport) => {
    expect(await transportOf({ transport })).toBe(transport);
  });

  it("'auto' is lean for options it honours", async () => {
    expect(await transportOf({ transport: 'auto' })).toBe('lean');
  });

  it('refuses a transport it does not know', () => {
    const error = refusal({ transport: 'fast' as never });
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe('transport is "fast"; use one of auto, lean, sdk');
  });

  it("refuses 'lean' with a client instance, which is the SDK's to stream with", () => {
    const error = refusal({ transport: 'lean', anthropic: new Anthropic({ apiKey: 'test' }) });
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain("transport 'lean' builds its own client");
  });

  it("refuses 'lean' with options it cannot honour, naming the option", () => {
    const error = refusal({
      transport: 'lean',
      anthropic: { apiKey: 'test', fetch: globalThis.fetch },
    });
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toContain('a custom fetch');
  });

  it('uses a client instance as it is, an SDK client on the same base (Bedrock, Vertex) too', () => {
    const sdk = new Anthropic({ apiKey: 'test' });
    expect(llmClientFor(sdk, 'auto')).toBe(sdk);
    const other = { messages: sdk.messages } as unknown as Anthropic;
    expect(llmClientFor(other, 'auto')).toBe(other);
  });

  it('follows AGENT_STATECHART_TRANSPORT when the option is left out, and the option over it', () => {
    const env = { [TRANSPORT_ENV]: 'sdk' };
    expect(resolveLlmTransport({ apiKey: 'test' }, undefined, env)).toBe('sdk');
    expect(resolveLlmTransport({ apiKey: 'test' }, 'lean', env)).toBe('lean');
    expect(resolveLlmTransport({ apiKey: 'test' }, undefined, {})).toBe('auto');
    expect(resolveLlmTransport({ apiKey: 'test' }, undefined, { [TRANSPORT_ENV]: ' ' })).toBe(
      'auto',
    );
    // A client instance is the SDK's to stream with, whatever the environment says.
    const sdk = new Anthropic({ apiKey: 'test' });
    expect(resolveLlmTransport(sdk, undefined, { [TRANSPORT_ENV]: 'lean' })).toBe('auto');
  });

  it('refuses a value of AGENT_STATECHART_TRANSPORT it cannot use, naming the variable', () => {
    expect(() => resolveLlmTransport({}, undefined, { [TRANSPORT_ENV]: 'fetch' })).toThrow(
      'AGENT_STATECHART_TRANSPORT is "fetch"; use one of auto, lean, sdk',
    );
    expect(() =>
      resolveLlmTransport({ fetch: globalThis.fetch }, undefined, { [TRANSPORT_ENV]: 'lean' }),
    ).toThrow(/^AGENT_STATECHART_TRANSPORT 'lean' cannot honour a custom fetch/);
  });

  it('streams over the SDK when the environment says sdk and the option is left out', async () => {
    const before = process.env[TRANSPORT_ENV];
    process.env[TRANSPORT_ENV] = 'sdk';
    try {
      expect(await transportOf({})).toBe('sdk');
    } finally {
      if (before === undefined) delete process.env[TRANSPORT_ENV];
      else process.env[TRANSPORT_ENV] = before;
    }
  });
});
