/**
 * The recorded response against the SDK's own reduction of the same stream: what
 * `client.messages.stream(...).finalMessage()` knows about a message — its id, model, stop
 * reason, stop sequence, stop details and container — the response the chart records knows too.
 */
import type { Message as SdkMessage } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { StreamedLlmResponse } from '../../../src/actors/llm/messageAccumulator.js';
import { streamLlmResponse } from '../../../src/actors/llm/streamLlmResponse.js';
import { toMessageCreateParams } from '../../../src/actors/llm/toMessageCreateParams.js';
import { recordedStream, reply, type ScriptedTurn } from '../../../src/testing/index.js';
import { factsOf, fixture, request, responseOf, serve } from './harness.js';

const FIXTURES = [
  'basic_response.sse',
  'tool_use_response.sse',
  'incomplete_partial_json_response.sse',
  'stream-a-refusal.sse',
  'stream-a-toolrefusal.sse',
  'stream-b-fallback.sse',
];

/** The same turn, reduced by the SDK and by the LLM actor's streaming function. */
async function bothReductions(
  turn: ScriptedTurn,
): Promise<{ sdk: SdkMessage; ours: StreamedLlmResponse }> {
  // A server each, so both see the turn first (scripted ids count the turns).
  const { stream: _stream, ...params } = toMessageCreateParams(request);
  const sdk = await (await serve([turn])).sdk.messages.stream(params).finalMessage();
  const { client } = await serve([turn]);
  const ours = responseOf(await streamLlmResponse({ client, request }));
  return { sdk, ours };
}

describe("the recorded response and the SDK's finalMessage()", () => {
  it.each(FIXTURES)('agree on everything about the message in %s', async (name) => {
    const { sdk, ours } = await bothReductions(recordedStream(await fixture(name)));
    const facts = factsOf(sdk, ours);
    expect(facts.ours).toEqual(facts.sdk);
    expect(facts.ours.id).toMatch(/^msg_/);
    if (name !== 'incomplete_partial_json_response.sse') {
      // (The SDK keeps the cut-off input half-parsed; the chart keeps {} and says why.)
      expect(ours.message.content).toEqual(sdk.content);
    }
  });

  it('keeps the refusal details of stream-a-refusal', async () => {
    const { ours } = await bothReductions(recordedStream(await fixture('stream-a-refusal.sse')));
    expect(ours.stopDetails).toMatchObject({ type: 'refusal', category: null });
  });

  it('agree on a scripted stop sequence, stop details and container', async () => {
    const container = { id: 'container_011CZ', expires_at: '2026-07-01T12:00:00Z', skills: null };
    const { sdk, ours } = await bothReductions(
      reply('The answer is', {
        stopSequence: '###',
        stopDetails: { type: 'refusal', category: 'cyber', explanation: null },
        container,
      }),
    );
    const facts = factsOf(sdk, ours);
    expect(facts.ours).toEqual(facts.sdk);
    expect(facts.ours).toMatchObject({
      stopReason: 'stop_sequence',
      stopSequence: '###',
      stopDetails: { type: 'refusal', category: 'cyber' },
      container,
    });
  });
});
