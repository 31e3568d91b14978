/**
 * What a streamed turn (a reply or a recorded stream) sends: its SSE frames, the Message they add
 * up to for a non-streaming request, and what the answer costs against the rate limits.
 */

import type { MessagesRequestBody } from './messagesRequest.js';
import { type FoldedStream, messageFromEvents, messageFromSseFrames } from './messageFromEvents.js';
import type { RequestCost } from './rateLimiter.js';
import { replyEvents } from './replyEvents.js';
import type { RecordedStreamTurn, ReplyTurn } from './scriptedTurn.js';
import { encodeSseEvent, splitSseFrames } from './sseEncoding.js';

/**
 * A cost of one request and no tokens: the answer reported no usage.
 *
 * @example
 * limiter.charge(NO_TOKENS, Date.now());
 */
export const NO_TOKENS: Readonly<RequestCost> = { inputTokens: 0, outputTokens: 0 };

/**
 * A streamed turn made ready to send either way.
 *
 * @example
 * const { frames, folded, cost } = turnStream(reply('Hi'), body, 0);
 */
export interface TurnStream {
  frames: string[];
  folded: FoldedStream;
  cost: RequestCost;
}

/**
 * Builds the frames of a reply (ids from `turnIndex`, the request's model echoed, input tokens
 * estimated from its system and messages) or splits a recording, and folds them into one
 * Message.
 *
 * @example
 * const { frames } = turnStream(recordedStream(sse), body, 3);
 */
export function turnStream(
  turn: ReplyTurn | RecordedStreamTurn,
  body: MessagesRequestBody,
  turnIndex: number,
): TurnStream {
  if (turn.kind === 'recorded_stream') {
    const frames = splitSseFrames(turn.sse);
    const folded = messageFromSseFrames(frames);
    return { frames, folded, cost: costOf(folded) };
  }
  const inputTokens = estimateTokens(JSON.stringify([body.system ?? '', body.messages]));
  const events = replyEvents(turn, { turnIndex, model: body.model, inputTokens });
  const folded = messageFromEvents(events.map((event) => event.data));
  return { frames: events.map(encodeSseEvent), folded, cost: costOf(folded) };
}

/** What an answer takes from the token buckets: its usage; cache reads do not count. */
function costOf(folded: FoldedStream): RequestCost {
  if (folded.kind !== 'message') return NO_TOKENS;
  const usage = folded.message.usage;
  if (typeof usage !== 'object' || usage === null) return NO_TOKENS;
  const count = (name: string): number => {
    const value: unknown = (usage as Record<string, unknown>)[name];
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  };
  return {
    inputTokens: count('input_tokens') + count('cache_creation_input_tokens'),
    outputTokens: count('output_tokens'),
  };
}

/** Roughly four characters per token: enough for plausible `usage` numbers. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
