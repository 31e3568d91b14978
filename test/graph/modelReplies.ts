/**
 * What the model can answer in a generated path: replies (`LlmCompleted`) and failures
 * (`LlmError`), as templates whose tool calls get their ids when a path is replayed.
 */
import type {
  AgentEvent,
  ContentBlock,
  LlmError,
  LlmResponse,
  StopReason,
} from '../../src/index.js';
import { FULL_WINDOW_TOKENS, newCallId } from './pathEvents.js';

export { FULL_WINDOW_TOKENS };

/** An `ask_user` call's questions: one, with choices. */
export const QUESTION_INPUT = {
  questions: [
    {
      header: 'Approach',
      question: 'Edit the file in place, or write a new one?',
      options: [{ label: 'In place' }, { label: 'New file' }],
    },
  ],
};

/** A `task` call's input: a sub-task for the `reviewer` subagent (see `subagentsVariant`). */
export const TASK_INPUT = {
  agent: 'reviewer',
  prompt: 'Review notes.txt for mistakes and list them.',
  description: 'review notes.txt',
};

function reply(
  text: string | null,
  toolNames: readonly string[],
  extra: {
    stopReason?: StopReason;
    invalidInput?: boolean;
    invalidAt?: number;
    inputTokens?: number;
  } = {},
): AgentEvent {
  const content: ContentBlock[] = [];
  if (text !== null) content.push({ type: 'text', text });
  toolNames.forEach((name, index) => {
    // `ask_bad` stands for an `ask_user` call whose questions are malformed, `task_bad` for a
    // `task` call for an agent that does not exist.
    const input =
      name === 'ask_user'
        ? QUESTION_INPUT
        : name === 'ask_bad'
          ? { questions: [] }
          : name === 'task'
            ? TASK_INPUT
            : name === 'task_bad'
              ? { agent: 'nobody', prompt: TASK_INPUT.prompt }
              : { path: 'notes.txt' };
    const called = name === 'ask_bad' ? 'ask_user' : name === 'task_bad' ? 'task' : name;
    content.push({ type: 'tool_use', id: newCallId(index), name: called, input });
  });
  const response: LlmResponse = {
    message: { role: 'assistant', content },
    stopReason: extra.stopReason ?? (toolNames.length > 0 ? 'tool_use' : 'end_turn'),
    usage: { input_tokens: extra.inputTokens ?? 10, output_tokens: 5 },
  };
  if (extra.invalidInput) {
    // The streamed JSON of a call (the first, unless told) never parsed, or did not match its
    // schema: the chart answers it without running it.
    response.toolInputErrors = {
      [newCallId(extra.invalidAt ?? 0)]: 'Unexpected end of JSON input',
    };
  }
  return { type: 'LlmCompleted', response };
}

/** Model replies, by what they exercise. */
export const replies = {
  text: reply('All done.', []),
  readOnly: reply(null, ['read_file']),
  mutating: reply('Editing.', ['edit_file']),
  mixed: reply('Reading, then editing.', ['read_file', 'edit_file']),
  twoEdits: reply('Editing twice.', ['edit_file', 'edit_file']),
  editAndShell: reply('Editing and testing.', ['edit_file', 'bash']),
  refusal: reply('I will not do that.', ['edit_file'], { stopReason: 'refusal' }),
  maxTokens: reply('A long answer, cut', [], { stopReason: 'max_tokens' }),
  invalidToolInput: reply(null, ['read_file'], { invalidInput: true }),
  empty: reply(null, []),
  answer: reply(null, ['final_answer']),
  editAndAnswer: reply('Editing, then answering.', ['edit_file', 'final_answer']),
  invalidAnswer: reply(null, ['final_answer'], { invalidInput: true }),
  editAndInvalidAnswer: reply(null, ['edit_file', 'final_answer'], {
    invalidInput: true,
    invalidAt: 1,
  }),
  question: reply('One question first.', ['ask_user']),
  questionAndEdit: reply(null, ['ask_user', 'edit_file']),
  malformedQuestion: reply(null, ['ask_bad']),
  // Sub-tasks for a subagent: alone, beside a read, beside an edit, and for no such agent.
  task: reply('Handing the review to the reviewer.', ['task']),
  taskAndRead: reply(null, ['task', 'read_file']),
  taskAndEdit: reply('Editing while the reviewer reads.', ['task', 'edit_file']),
  invalidTask: reply(null, ['task_bad']),
  // Replies to a request that nearly fills a small context window: the next one compacts first.
  fullText: reply('Done; that took a lot of reading.', [], { inputTokens: FULL_WINDOW_TOKENS }),
  fullReadOnly: reply(null, ['read_file'], { inputTokens: FULL_WINDOW_TOKENS }),
  // A compaction's summary call: the summary, or nothing.
  summary: reply('The user asked to read notes.txt; it was read and answered.', []),
} as const satisfies Record<string, AgentEvent>;

const llmError = (error: LlmError): AgentEvent => ({ type: 'LlmError', error });

/** Model-call failures, by what they exercise. */
export const failures = {
  rateLimitedWithRetryAfter: llmError({
    kind: 'rate_limit',
    message: 'rate limited',
    status: 429,
    retryAfterMs: 1500,
  }),
  serverError: llmError({ kind: 'server', message: 'internal server error', status: 500 }),
  streamCut: llmError({ kind: 'network', message: 'socket hang up' }),
  unauthorized: llmError({ kind: 'auth', message: 'invalid x-api-key', status: 401 }),
} as const satisfies Record<string, AgentEvent>;
