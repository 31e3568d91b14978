/**
 * The lean transport's reading of a response body held to the SDK's, on the same bytes split into
 * the same reads: every recorded stream, written every way the format allows, cut anywhere, split
 * anywhere (one byte per read among the splits). The events must be the SDK's `Stream` events
 * exactly, a failure the SDK's failure, and the response and deltas the LLM actor reduces them to
 * the same; the message agrees with the SDK's own `MessageStream.finalMessage()`.
 */
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { Stream } from '@anthropic-ai/sdk/core/streaming';
import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder } from '../../../src/actors/llm/eventStreamDecoder.js';
import {
  type AccumulatorOutcome,
  MessageAccumulator,
} from '../../../src/actors/llm/messageAccumulator.js';
import { messageStreamListener } from '../../../src/actors/llm/messageStreamEvents.js';
import type { LlmStreamDelta } from '../../../src/machine/index.js';
import { chunksOf, splitsArb } from './chunkSplits.js';
import { factsOf } from './harness.js';
import { RECORDED_STREAMS, streamVariants } from './recordedStreams.js';

const HEADERS = { 'content-type': 'text/event-stream', 'request-id': 'req_decoding_1' };

/** What reading a body gave: its events, and the error that ended it if one did. */
interface Reading {
  events: RawMessageStreamEvent[];
  failure?: {
    name: string;
    message: string;
    status?: unknown;
    error?: unknown;
    type?: unknown;
    requestID?: unknown;
  };
}

function failureOf(error: unknown): NonNullable<Reading['failure']> {
  if (!(error instanceof Error)) throw error;
  const failure: NonNullable<Reading['failure']> = { name: error.name, message: error.message };
  if (error instanceof APIError) {
    const apiError = error as APIError;
    const { status, type, requestID } = apiError;
    Object.assign(failure, { status, error: apiError.error, type, requestID });
  }
  return failure;
}

function body(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk.slice());
      controller.close();
    },
  });
}

/** A logger for the SDK that keeps its complaint about JSON it cannot parse out of the output. */
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const sdkClient = new Anthropic({ apiKey: 'test', logger: quiet });

async function sdkReading(chunks: readonly Uint8Array[]): Promise<Reading> {
  const response = new Response(body(chunks), { headers: HEADERS });
  const events: RawMessageStreamEvent[] = [];
  try {
    const stream = Stream.fromSSEResponse<RawMessageStreamEvent>(
      response,
      new AbortController(),
      sdkClient,
    );
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    return { events, failure: failureOf(error) };
  }
}

/** The lean transport's reading: its decoder and listener, fed the reads as its socket would. */
function leanReading(chunks: readonly Uint8Array[]): Reading {
  const events: RawMessageStreamEvent[] = [];
  const decoder = new EventStreamDecoder(
    messageStreamListener(
      (event) => events.push(event),
      () => new Headers(HEADERS),
    ),
  );
  try {
    for (const chunk of chunks) decoder.push(chunk);
    decoder.end();
    return { events };
  } catch (error) {
    return { events, failure: failureOf(error) };
  }
}

/** What the LLM actor makes of the events: its deltas and its outcome. */
function reduce(events: readonly RawMessageStreamEvent[]): {
  deltas: LlmStreamDelta[];
  outcome: AccumulatorOutcome | { ok: false; step: unknown };
} {
  const accumulator = new MessageAccumulator();
  const deltas: LlmStreamDelta[] = [];
  for (const event of events) {
    const step = accumulator.apply(event);
    if (!step.ok) return { deltas, outcome: { ok: false, step: step.error } };
    if (step.delta !== undefined) deltas.push(step.delta);
  }
  return { deltas, outcome: accumulator.finish() };
}

/** The SDK's `messages.stream(...).finalMessage()` over a response with exactly these reads. */
async function sdkFinalMessage(chunks: readonly Uint8Array[]): Promise<Message> {
  const client = new Anthropic({
    apiKey: 'test',
    maxRetries: 0,
    logger: quiet,
    fetch: () => Promise.resolve(new Response(body(chunks), { headers: HEADERS })),
  });
  return client.messages
    .stream({
      model: 'claude-test-model',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
    })
    .finalMessage();
}

const encoder = new TextEncoder();

/** The usage fields the SDK's message has too, and the others. */
function splitUsage(
  usage: object,
  sdk: object,
): { known: Record<string, unknown>; extra: Record<string, unknown> } {
  const known: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(usage)) (key in sdk ? known : extra)[key] = value;
  return { known, extra };
}

function sentInMessageDelta(sse: string, key: string): boolean {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: {"type":"message_delta"'))
    .some((line) => key in ((JSON.parse(line.slice(6)) as { usage?: object }).usage ?? {}));
}

const cases = RECORDED_STREAMS.flatMap(({ name, sse }) =>
  streamVariants(sse).map(({ variant, sse: text }) => ({
    name,
    variant,
    bytes: encoder.encode(text),
  })),
);

describe('the lean reading of a response body, against the SDK', () => {
  it.each(cases)(
    'reads $name ($variant) as the SDK does, however the bytes are split',
    async ({ bytes }) => {
      await fc.assert(
        fc.asyncProperty(splitsArb(bytes.length), async (splits) => {
          const chunks = chunksOf(bytes, splits);
          const lean = leanReading(chunks);
          expect(lean).toEqual(await sdkReading(chunks));
          expect(lean.failure).toBeUndefined();
          expect(reduce(lean.events)).toEqual(reduce((await sdkReading(chunks)).events));
        }),
        { numRuns: 25 },
      );
    },
  );

  it.each(RECORDED_STREAMS)('reads $name cut off anywhere as the SDK does', async ({ sse }) => {
    const bytes = encoder.encode(sse);
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 0, max: bytes.length })
          .chain((end) => fc.tuple(fc.constant(end), splitsArb(end))),
        async ([end, splits]) => {
          const chunks = chunksOf(bytes.subarray(0, end), splits);
          expect(leanReading(chunks)).toEqual(await sdkReading(chunks));
        },
      ),
      { numRuns: 40 },
    );
  });

  it.each(RECORDED_STREAMS)(
    "reduces $name to the message the SDK's finalMessage() builds",
    async ({ name, sse }) => {
      const bytes = encoder.encode(sse);
      await fc.assert(
        fc.asyncProperty(splitsArb(bytes.length), async (splits) => {
          const chunks = chunksOf(bytes, splits);
          const { outcome } = reduce(leanReading(chunks).events);
          const sdk = await sdkFinalMessage(chunks);
          if (!outcome.ok) throw new Error(`the stream did not reduce: ${JSON.stringify(outcome)}`);
          const { response } = outcome;
          const facts = factsOf(sdk, response);
          expect(facts.ours).toEqual(facts.sdk);
          // The SDK copies the usage fields it knows from message_delta; the chart keeps every
          // one the API sent (`iterations` in the fallback streams), and all of the SDK's agree.
          const { extra, known } = splitUsage(response.usage ?? {}, sdk.usage);
          expect(known).toEqual(sdk.usage);
          expect(Object.keys(extra).every((key) => sentInMessageDelta(sse, key))).toBe(true);
          if (name === 'incomplete_partial_json_response.sse') {
            // The SDK keeps the input it could half-parse; the chart keeps {} and tells the model why.
            expect(response.toolInputErrors).toBeDefined();
          } else {
            expect(response.message.content).toEqual(sdk.content);
          }
        }),
        { numRuns: 10 },
      );
    },
  );

  it.each([
    [
      'an error event',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    ],
    ['an error event whose data is not JSON', 'event: error\ndata: upstream gone\n\n'],
    ['an error event whose data is null', 'event: error\ndata: null\n\n'],
    ['an error event without data', 'event: error\n\n'],
    ['data that is not JSON', 'event: content_block_delta\ndata: {"type":\n\n'],
    [
      'an event without a name, then one named with no data',
      'data: {"type":"message_stop"}\n\nevent: message_stop\n\n',
    ],
  ])('fails or skips as the SDK does on %s, after the events before it', async (_name, tail) => {
    const head = RECORDED_STREAMS.find(({ name }) => name === 'basic_response.sse')!.sse;
    const frames = head.split('\n\n');
    const bytes = encoder.encode(`${frames.slice(0, 4).join('\n\n')}\n\n${tail}`);
    await fc.assert(
      fc.asyncProperty(splitsArb(bytes.length), async (splits) => {
        const chunks = chunksOf(bytes, splits);
        const lean = leanReading(chunks);
        expect(lean).toEqual(await sdkReading(chunks));
        expect(lean.events.length).toBeGreaterThan(0);
      }),
      { numRuns: 20 },
    );
  });
});
