/**
 * The turn the compaction crash test runs: a session whose stored history nearly fills a small
 * context window takes one more input, so the chart compacts (the model summarises the older
 * part) before it sends the request, then answers. Everything the model says is decided by the
 * request, so a process that resumes the session gets the same answers the first one would have.
 */
import type { AgentConfig, Message } from '../../../src/index.js';
import { reply, type ScriptFunction } from '../../../src/testing/index.js';

/** The input that pushes the next request past the threshold. */
export const INPUT = 'One more thing: what did we settle on for the cache?';
export const SUMMARY = 'We discussed six topics; the cache keeps entries for an hour.';
export const ANSWER = 'We settled on an hour for the cache entries.';

/** The chart's settings in every process: a window of 4,000 tokens, compacted at half of it. */
export const COMPACTION: NonNullable<AgentConfig['compaction']> = {
  contextWindow: 4_000,
  threshold: 0.5,
  keepRecentTokens: 400,
};

/** The history the session starts from: six exchanges of about 1,500 characters each. */
export function history(): Message[] {
  const messages: Message[] = [];
  for (let topic = 1; topic <= 6; topic++) {
    const words = `topic ${topic} `.repeat(90);
    messages.push({ role: 'user', content: `Tell me about topic ${topic}: ${words}` });
    messages.push({
      role: 'assistant',
      content: [{ type: 'text', text: `On topic ${topic}: ${words}` }],
    });
  }
  return messages;
}

/** A model that answers by the request: the summary when asked for one, else the answer. */
export function compactionModel(): ScriptFunction {
  return (request) => {
    const last = JSON.stringify(request.messages.at(-1) ?? '');
    if (last.includes('Stop here and write a summary')) {
      return reply(SUMMARY, { textChunkSize: 8 });
    }
    return reply(ANSWER, { textChunkSize: 8 });
  };
}
