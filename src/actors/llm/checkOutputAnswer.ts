/**
 * Structured output, checked where the response arrives: the call that gives a turn's answer
 * (`LlmRequest.output`) has its input checked against the answer's JSON Schema, and a mismatch
 * goes into the response's `toolInputErrors`, so the chart answers the call with what to fix.
 */
import * as z from 'zod';
import {
  errorMessage,
  type LlmRequest,
  type LlmResponse,
  messageText,
  type ToolCall,
  toolCallsOf,
} from '../../machine/index.js';
import { formatIssueLines } from '../tools/formatInputIssues.js';

/**
 * `response` with the answer calls whose input does not match the schema marked in
 * `toolInputErrors`; the response itself when there are none (or the request asks no answer).
 *
 * @example
 * const checked = checkOutputAnswer(response, request.output);
 * checked.toolInputErrors; // { toolu_1: 'the answer does not match its schema:\n- verdict: …' }
 */
export function checkOutputAnswer<Response extends LlmResponse>(
  response: Response,
  output: LlmRequest['output'],
): Response {
  if (output === undefined) return response;
  if (output.via === 'format') return checkFormatAnswer(response, output.schema);
  const calls = toolCallsOf(response.message).filter(
    (call) => call.name === output.name && response.toolInputErrors?.[call.id] === undefined,
  );
  if (calls.length === 0) return response;
  const schema = compiled(output.schema);
  if (typeof schema === 'string') return withErrors(response, calls, schema);
  const errors: Record<string, string> = {};
  for (const call of calls) {
    const checked = schema.safeParse(call.input);
    if (checked.success) continue;
    errors[call.id] = [
      'the answer does not match its schema:',
      ...formatIssueLines(checked.error.issues),
      `Fix these fields and call ${output.name} again.`,
    ].join('\n');
  }
  if (Object.keys(errors).length === 0) return response;
  return { ...response, toolInputErrors: { ...response.toolInputErrors, ...errors } };
}

/**
 * The final text of a turn answered in the API's format, parsed and checked against the schema:
 * the API constrains it, and a reply cut short (`max_tokens`) or refused still is not the answer.
 * A response that calls tools is not the final one.
 */
function checkFormatAnswer<Response extends LlmResponse>(
  response: Response,
  jsonSchema: Record<string, unknown>,
): Response {
  if (toolCallsOf(response.message).length > 0) return response;
  let value: unknown;
  try {
    value = JSON.parse(messageText(response.message));
  } catch {
    return { ...response, outputError: 'the final text is not JSON' };
  }
  const schema = compiled(jsonSchema);
  if (typeof schema === 'string') return { ...response, outputError: schema };
  const checked = schema.safeParse(value);
  if (checked.success) return response;
  return {
    ...response,
    outputError: ['it does not match the schema:', ...formatIssueLines(checked.error.issues)].join(
      '\n',
    ),
  };
}

/** The answer's JSON Schema as a zod schema to check with, or why it cannot be one. */
function compiled(jsonSchema: Record<string, unknown>): z.ZodType | string {
  try {
    return z.fromJSONSchema(jsonSchema);
  } catch (error) {
    return `the answer's schema cannot be checked (${errorMessage(error)})`;
  }
}

function withErrors<Response extends LlmResponse>(
  response: Response,
  calls: readonly ToolCall[],
  reason: string,
): Response {
  const errors = Object.fromEntries(calls.map((call) => [call.id, reason]));
  return { ...response, toolInputErrors: { ...response.toolInputErrors, ...errors } };
}
