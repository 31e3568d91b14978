/**
 * What the compaction tests read of the requests a scripted model server got: whether one is a
 * compaction's summary request, and the text of a message's content.
 */
import type { MessagesRequestBody } from '../../src/testing/index.js';

/** A compaction's summary request: the one request that forbids every tool. */
export function asksForSummary(body: MessagesRequestBody): boolean {
  return (body as { tool_choice?: { type?: string } }).tool_choice?.type === 'none';
}

/** The text of a message's content: the string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: string }) => (block.type === 'text' ? block.text : ''))
    .join('');
}
