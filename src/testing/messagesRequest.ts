/**
 * The body of a `POST /v1/messages` request as the server checks and records it.
 */

import * as z from 'zod';

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
  if (result.success) return { ok: true, body: result.data };
  const problem = result.error.issues
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, problem };
}
