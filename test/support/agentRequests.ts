/**
 * What the tests of a tree of agents read of a scripted model's requests and of transcripts: the
 * system prompt a request carries (which agent of the tree asks), and a message's text with its
 * tool results.
 */
import type { Message } from '../../src/index.js';

/** A request's system prompt, a string or text blocks (the prompt cache marks its end). */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system.map((block: { text?: string }) => block.text ?? '').join('');
}

/** A message's text blocks and tool results (as JSON), joined with spaces. */
export function textWithResults(message: Message | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'tool_result') return JSON.stringify(block.content);
      return '';
    })
    .join(' ');
}
