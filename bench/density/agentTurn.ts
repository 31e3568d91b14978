/**
 * The agent turn every subject of the density benchmark does, and the replies the pacing server
 * streams for it: the user asks, the model streams 600 text deltas and calls one read-only tool,
 * the tool answers, the model streams a short answer. Every subject sends the same request
 * (model, prompt, one tool with the same JSON Schema) and runs the same tool body.
 */
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { reply, replyEvents, type ReplyTurn } from '../../src/testing/index.js';

export const MODEL = 'claude-sonnet-5-5';
export const MAX_TOKENS = 4096;
export const PROMPT = 'Read the design note and summarise what it says about retries.';

/** Text deltas in the first stream, and in the second (the answer after the tool result). */
export const FIRST_TEXT_DELTAS = 600;
export const SECOND_TEXT_DELTAS = 20;
/** Code points per `text_delta`: a token or so, as the API streams text. */
const TEXT_CHUNK = 4;

export const TOOL_NAME = 'read_note';
export const TOOL_DESCRIPTION = 'Read one of the project notes by name (read-only).';
/**
 * The tool as the subjects on the bare SDK declare it to the API; the others describe the same
 * input with zod (noteInput.ts), which their libraries turn into this JSON Schema.
 */
export const TOOL_DEFINITION: Tool = {
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  input_schema: {
    type: 'object',
    properties: { name: { type: 'string', description: 'The note to read' } },
    required: ['name'],
    additionalProperties: false,
  },
};

/** The read-only tool's body, shared by every subject: a fixed note, a few hundred characters. */
export function readNote(name: string): string {
  return `# ${name}\n${'Retries back off exponentially with jitter and honour Retry-After. '.repeat(6)}`;
}

function textOf(deltas: number, seed: string): string {
  const text = seed.repeat(Math.ceil((deltas * TEXT_CHUNK) / seed.length));
  return text.slice(0, deltas * TEXT_CHUNK);
}

/** The first stream: 600 text deltas, then the `tool_use`. */
export function firstReply(options: Pick<ReplyTurn, 'eventDelayMs' | 'responseDelayMs'>) {
  return reply(
    [
      { type: 'text', text: textOf(FIRST_TEXT_DELTAS, 'Let me read the design note first. ') },
      { type: 'tool_use', name: TOOL_NAME, input: { name: 'design' } },
    ],
    { ...options, textChunkSize: TEXT_CHUNK },
  );
}

/** The second stream, after the tool result: a short answer. */
export function secondReply(options: Pick<ReplyTurn, 'eventDelayMs' | 'responseDelayMs'>) {
  return reply(textOf(SECOND_TEXT_DELTAS, 'Retries back off with jitter. '), {
    ...options,
    textChunkSize: TEXT_CHUNK,
  });
}

/** Characters of text a listener sees in a whole turn, so each subject can prove it streamed. */
export const TURN_TEXT_LENGTH = (FIRST_TEXT_DELTAS + SECOND_TEXT_DELTAS) * TEXT_CHUNK;

/**
 * What is wrong with a finished turn, or `null`: every character of text reached the listener,
 * and the transcript holds the turn's four messages (the prompt, the tool call, its result, the
 * answer).
 */
export function turnProblem(textSeen: number, messages: number): string | null {
  if (textSeen !== TURN_TEXT_LENGTH) {
    return `saw ${textSeen} characters of text, expected ${TURN_TEXT_LENGTH}`;
  }
  return messages === 4 ? null : `${messages} messages after the turn, expected 4`;
}

/** SSE events the pacing server sends for one whole turn (both streams). */
export function eventsPerTurn(): number {
  const context = { turnIndex: 0, model: MODEL, inputTokens: 1 };
  return [firstReply({}), secondReply({})].reduce(
    (sum, turn) => sum + replyEvents(turn, context).length,
    0,
  );
}
