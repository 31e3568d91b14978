/**
 * The turn the persistence table records, and the history it is recorded on top of. The turn is
 * the issue's: the user asks, the model answers with text and one `read_file` call, the tool
 * returns a file, the model answers — a few KB of text and a tool output, the sizes of a real
 * coding turn. The prior history is made of turns of the same shape, smaller on average (see
 * `PRIOR_SIZES`). Every subject is handed the same objects.
 */
import type { Message } from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';

/** Sizes of one turn, in characters of text. */
export interface TurnSizes {
  prompt: number;
  /** The text before the tool call. */
  preamble: number;
  toolOutput: number;
  answer: number;
}

/** The measured turn: about 8 KB of new messages, half of it the file the tool read. */
export const TURN_SIZES: TurnSizes = {
  prompt: 400,
  preamble: 1_000,
  toolOutput: 4_000,
  answer: 2_000,
};

/**
 * The prior turns: about 790 bytes of JSON per message on average, near the average of the
 * session a LangGraph.js user measured (24 MB rows at 32,000 messages, langgraphjs PR #2324).
 */
export const PRIOR_SIZES: TurnSizes = {
  prompt: 200,
  preamble: 300,
  toolOutput: 1_600,
  answer: 550,
};

/** The history sizes every persistence figure is repeated at. */
export const PERSISTENCE_HISTORY_SIZES = [10, 1_000, 10_000] as const;

/**
 * The history sizes also measured compacted to their active window (a `Compact` at rest): the
 * whole history in the log, the summary and the latest messages in the transcript.
 */
export const COMPACTED_HISTORY_SIZES = [10_000] as const;

/** The tools the turn calls, as the chart's config declares them. */
export const DURABLE_TOOL_SPECS = [{ name: 'read_file', mutating: false }];

const WORDS = (
  'the state chart records every event from outside before it acts on it so a restart ' +
  'replays the log and finds the turn where it stood tool calls that were running are ' +
  'reported or run again model requests are sent again and nothing is lost when the ' +
  'process stops between two writes of one session'
).split(' ');

/** Deterministic prose of `length` characters (a linear congruential walk over `WORDS`). */
function prose(length: number, seed: number): string {
  let state = seed >>> 0;
  let text = '';
  while (text.length < length) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    text += `${WORDS[state % WORDS.length]!}${state % 13 === 0 ? '.\n' : ' '}`;
  }
  return text.slice(0, length);
}

/** Deterministic TypeScript source of about `length` characters, as `read_file` returns it. */
function source(length: number, seed: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < length; line++) {
    const text =
      line % 5 === 0
        ? `export function step${seed}_${line}(input: string): string {`
        : line % 5 === 4
          ? '}'
          : `  const value${line} = input.replace("${seed}", '${line}'); // "quoted" \\ ok`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n').slice(0, length);
}

/**
 * One turn's events, numbered `turn` (ids and text differ per turn), of the given sizes. The
 * usage each response reports stays far below the context window whatever the turn's number, so
 * no request of a history or of the measured turn compacts (compaction is on by default); the
 * compacted history is compacted on purpose (storedHistory.ts).
 */
export function durableTurn(turn: number, sizes: TurnSizes = TURN_SIZES): TurnScript {
  const callId = `toolu_${String(turn).padStart(6, '0')}`;
  const path = `src/module${turn}.ts`;
  const call = { id: callId, name: 'read_file', input: { path } };
  return {
    user: { role: 'user', content: `${path}: ${prose(sizes.prompt, turn * 4 + 1)}` },
    firstDeltas: [],
    firstResponse: {
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: prose(sizes.preamble, turn * 4 + 2) },
          { type: 'tool_use', ...call },
        ],
      },
      stopReason: 'tool_use',
      usage: { input_tokens: 1_200 + (turn % 1_000), output_tokens: 300 },
    },
    toolResults: [
      {
        type: 'ToolCompleted',
        callId,
        outcome: { status: 'success', output: source(sizes.toolOutput, turn * 4 + 3) },
      },
    ],
    secondDeltas: [],
    secondResponse: {
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: prose(sizes.answer, turn * 4) }],
      },
      stopReason: 'end_turn',
      usage: { input_tokens: 2_500 + (turn % 1_000), output_tokens: 600 },
    },
  };
}

/**
 * A short exchange, numbered `turn`: a question and an answer with no tool call (it pads a
 * history to a size that is not a multiple of four).
 */
export function shortExchange(turn: number, sizes: TurnSizes = PRIOR_SIZES): TurnScript {
  const script = durableTurn(turn, sizes);
  return {
    ...script,
    firstResponse: { ...script.secondResponse },
    toolResults: [],
  };
}

/** The four messages a turn adds to the transcript, as the chart appends them. */
export function turnMessages(script: TurnScript): Message[] {
  const results = script.toolResults.map((result) => ({
    type: 'tool_result' as const,
    tool_use_id: result.callId,
    content: 'output' in result.outcome ? String(result.outcome.output) : '',
  }));
  return [
    script.user,
    script.firstResponse.message,
    { role: 'user', content: results },
    script.secondResponse.message,
  ];
}

/** The new content of a turn: the JSON text of the messages it adds. */
export function newContentBytes(script: TurnScript): number {
  return turnMessages(script).reduce(
    (sum, message) => sum + Buffer.byteLength(JSON.stringify(message)),
    0,
  );
}
