/**
 * Asking the user: the built-in `ask_user` tool, with which the model puts one to four questions
 * to the person it works for and waits for the answers. The chart runs it itself: a valid call
 * waits (`ExecutingTools.Questions.Waiting`) for a `UserAnswer`, whose answers become the call's
 * result; no tool actor is involved. Plain functions over plain data.
 */
import type { ToolDefinition } from './messages.js';

/** The name the model calls the question tool by. */
export const ASK_USER_TOOL = 'ask_user';

/** The most questions one call may ask. */
export const MAX_QUESTIONS = 4;

/** The longest header a question may have, in characters. */
export const MAX_HEADER_LENGTH = 30;

/**
 * One question the model asks: the question itself, a short header to show it under, and, when
 * it offers choices, the choices (the person may always answer in their own words instead).
 *
 * @example
 * const question: UserQuestion = {
 *   header: 'Database',
 *   question: 'Which database should the service use?',
 *   options: [{ label: 'PostgreSQL', description: 'Managed, shared' }, { label: 'SQLite' }],
 * };
 */
export interface UserQuestion {
  question: string;
  header: string;
  options?: Array<{ label: string; description?: string }>;
  /** The person may pick several of the options. */
  multiSelect?: boolean;
}

/**
 * The answers to one `ask_user` call, one per question in the order asked: a choice's label or
 * free text, several of either for a multi-select question, or `''` (or `[]`) for no answer.
 *
 * @example
 * const answers: UserAnswers = ['PostgreSQL', ['Search', 'Export'], ''];
 */
export type UserAnswers = Array<string | string[]>;

/** The question tool as the request offers it. */
export const ASK_USER_DEFINITION: ToolDefinition = {
  name: ASK_USER_TOOL,
  description:
    'Ask the user one to four questions and wait for the answers, when you need a decision or a fact only they have (a choice between approaches, a preference, a missing detail). Offer choices when you can; the user may always answer in their own words. Do not use it to ask for permission to run a tool.',
  input_schema: {
    type: 'object',
    properties: {
      questions: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_QUESTIONS,
        items: {
          type: 'object',
          properties: {
            question: { type: 'string', description: 'The question, complete and specific.' },
            header: {
              type: 'string',
              description: `A label of a word or two the question is shown under (at most ${MAX_HEADER_LENGTH} characters), such as "Database".`,
            },
            options: {
              type: 'array',
              minItems: 2,
              maxItems: 6,
              description: 'Choices to offer, when the answer is one (or several) of a few.',
              items: {
                type: 'object',
                properties: {
                  label: { type: 'string', description: 'The choice, in a few words.' },
                  description: { type: 'string', description: 'What choosing it means.' },
                },
                required: ['label'],
              },
            },
            multiSelect: {
              type: 'boolean',
              description: 'The user may pick several options. Default false.',
            },
          },
          required: ['question', 'header'],
        },
      },
    },
    required: ['questions'],
  },
};

/**
 * The questions of an `ask_user` call's input, or what is wrong with it, in a sentence the model
 * can act on.
 *
 * @example
 * questionsOf({ questions: [{ question: 'Which?', header: 'Pick' }] }); // { questions: [...] }
 * questionsOf({ questions: [] }); // { problem: 'questions must hold 1 to 4 questions; got 0' }
 */
export function questionsOf(input: unknown): { questions: UserQuestion[] } | { problem: string } {
  const list = isObject(input) ? input.questions : undefined;
  if (!Array.isArray(list)) return { problem: 'questions must be an array of questions' };
  if (list.length < 1 || list.length > MAX_QUESTIONS) {
    return { problem: `questions must hold 1 to ${MAX_QUESTIONS} questions; got ${list.length}` };
  }
  const questions: UserQuestion[] = [];
  for (const [index, item] of list.entries()) {
    const where = `questions[${index}]`;
    if (!isObject(item)) return { problem: `${where} must be an object { question, header }` };
    const { question, header, options, multiSelect } = item;
    if (typeof question !== 'string' || question.trim() === '') {
      return { problem: `${where}.question must be a non-empty string` };
    }
    if (typeof header !== 'string' || header.trim() === '' || header.length > MAX_HEADER_LENGTH) {
      return {
        problem: `${where}.header must be a string of 1 to ${MAX_HEADER_LENGTH} characters`,
      };
    }
    if (multiSelect !== undefined && typeof multiSelect !== 'boolean') {
      return { problem: `${where}.multiSelect must be a boolean` };
    }
    const read: UserQuestion = { question, header };
    if (options !== undefined) {
      const problem = optionsProblem(options, `${where}.options`);
      if (problem !== null) return { problem };
      read.options = (options as Array<Record<string, unknown>>).map((option) =>
        typeof option.description === 'string'
          ? { label: option.label as string, description: option.description }
          : { label: option.label as string },
      );
    }
    if (multiSelect === true) read.multiSelect = true;
    questions.push(read);
  }
  return { questions };
}

function optionsProblem(options: unknown, where: string): string | null {
  if (!Array.isArray(options) || options.length < 2 || options.length > 6) {
    return `${where} must be an array of 2 to 6 choices when given`;
  }
  for (const [index, option] of options.entries()) {
    if (!isObject(option) || typeof option.label !== 'string' || option.label.trim() === '') {
      return `${where}[${index}] must be an object with a non-empty label`;
    }
    if (option.description !== undefined && typeof option.description !== 'string') {
      return `${where}[${index}].description must be a string`;
    }
  }
  return null;
}

/**
 * Whether `answers` answers `questions`: one answer per question, a single answer (a string) for
 * a question that is not multi-select.
 *
 * @example
 * answersProblem([{ question: 'Which?', header: 'Pick' }], ['a', 'b']); // '2 answers for 1 question'
 */
export function answersProblem(
  questions: readonly UserQuestion[],
  answers: UserAnswers,
): string | null {
  if (answers.length !== questions.length) {
    const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
    return `${plural(answers.length, 'answer')} for ${plural(questions.length, 'question')}`;
  }
  for (const [index, answer] of answers.entries()) {
    if (Array.isArray(answer) && answer.length > 1 && questions[index]?.multiSelect !== true) {
      return `answers[${index}] picks several choices, but question ${index + 1} takes one`;
    }
  }
  return null;
}

/**
 * What the model reads as the `ask_user` call's result: each question under its header, and the
 * person's answer.
 *
 * @example
 * answerText([{ question: 'Which database?', header: 'Database' }], ['SQLite']);
 * // 'The user answered:\n[Database] Which database?\n→ SQLite'
 */
export function answerText(questions: readonly UserQuestion[], answers: UserAnswers): string {
  const lines = ['The user answered:'];
  questions.forEach((question, index) => {
    const answer = answers[index];
    const parts = (Array.isArray(answer) ? answer : [answer ?? '']).filter(
      (part) => part.trim() !== '',
    );
    lines.push(`[${question.header}] ${question.question}`);
    lines.push(`→ ${parts.length === 0 ? '(no answer)' : parts.join(', ')}`);
  });
  return lines.join('\n');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
