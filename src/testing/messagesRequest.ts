/**
 * The body of a `POST /v1/messages` request as the server checks and records it.
 */

import * as z from 'zod';
import { IMAGE_MEDIA_TYPES } from '../machine/index.js';

const contentBlockSchema = z.looseObject({ type: z.string() });

const messageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
});

const messagesRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().nonnegative(),
  messages: z.array(messageSchema),
  system: z.union([z.string(), z.array(contentBlockSchema)]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  stream: z.boolean().optional(),
});

/**
 * A Messages API request body: the fields the server checks are typed, every other field the
 * client sent is kept as it came.
 *
 * @example
 * const body: MessagesRequestBody = {
 *   model: 'claude-sonnet-5-5',
 *   max_tokens: 1024,
 *   stream: true,
 *   messages: [{ role: 'user', content: 'hi' }],
 * };
 */
export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;

/**
 * Checks a parsed JSON body the way the API would reject it: a missing or mistyped `model`,
 * `max_tokens` or `messages` is an `invalid_request_error` whose message names the field.
 *
 * @example
 * const checked = parseMessagesRequest(JSON.parse(rawBody));
 * if (!checked.ok) console.error(checked.problem); // 'messages: Invalid input: expected array, received undefined'
 */
export function parseMessagesRequest(
  value: unknown,
): { ok: true; body: MessagesRequestBody } | { ok: false; problem: string } {
  const result = messagesRequestSchema.safeParse(value);
  if (result.success) {
    const problem = contentProblem(result.data.messages);
    return problem === undefined ? { ok: true, body: result.data } : { ok: false, problem };
  }
  const problem = result.error.issues
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, problem };
}

/** The block types the API takes inside a `tool_result`. */
const TOOL_RESULT_BLOCKS = new Set(['text', 'image', 'document', 'search_result']);
const IMAGE_TYPES: ReadonlySet<string> = new Set(IMAGE_MEDIA_TYPES);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * What the API would refuse in the blocks of the messages: a `tool_result` holding a block it
 * takes nowhere there, or an image whose source is not a known image type with base64 data or a
 * URL. The path names the block as the API's own message does.
 */
function contentProblem(messages: MessagesRequestBody['messages']): string | undefined {
  for (const [m, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    for (const [b, block] of message.content.entries()) {
      const at = `messages.${m}.content.${b}`;
      if (block.type === 'image') {
        const problem = imageProblem(block, at);
        if (problem !== undefined) return problem;
      }
      if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      for (const [i, inner] of (block.content as unknown[]).entries()) {
        const innerAt = `${at}.content.${i}`;
        const type = (inner as { type?: unknown } | null)?.type;
        if (typeof type !== 'string' || !TOOL_RESULT_BLOCKS.has(type)) {
          return `${innerAt}.type: Input should be 'text', 'image', 'document' or 'search_result'`;
        }
        if (type === 'image') {
          const problem = imageProblem(inner as Record<string, unknown>, innerAt);
          if (problem !== undefined) return problem;
        }
      }
    }
  }
  return undefined;
}

function imageProblem(block: Record<string, unknown>, at: string): string | undefined {
  const source = block.source as Record<string, unknown> | undefined;
  if (source?.type === 'url') {
    return typeof source.url === 'string' ? undefined : `${at}.source.url: Field required`;
  }
  if (source?.type !== 'base64') return `${at}.source.type: Input should be 'base64' or 'url'`;
  if (typeof source.media_type !== 'string' || !IMAGE_TYPES.has(source.media_type)) {
    const allowed = IMAGE_MEDIA_TYPES.map((type) => `'${type}'`);
    return `${at}.source.media_type: Input should be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  }
  if (typeof source.data !== 'string' || source.data === '' || !BASE64.test(source.data)) {
    return `${at}.source.data: the image data is not valid base64`;
  }
  return undefined;
}
