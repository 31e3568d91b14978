/**
 * How `agent-statechart run` puts an `ask_user` question to the person at the terminal, and how
 * it reads the line they type: a choice's number, several numbers for a multi-select question,
 * words of their own, or nothing.
 */
import type { UserQuestion } from '../machine/index.js';

/**
 * The lines that show one question: its header and text, then its numbered choices, then how to
 * answer. `position` says which of how many it is, when the call asks more than one.
 *
 * @example
 * showQuestion({ header: 'Database', question: 'Which one?', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] });
 * // '  ? [Database] Which one?\n    1. PostgreSQL\n    2. SQLite\n  (a number, or your own answer; empty for none)\n'
 */
export function showQuestion(
  question: UserQuestion,
  position?: { index: number; count: number },
): string {
  const of =
    position === undefined || position.count === 1
      ? ''
      : ` (${position.index + 1}/${position.count})`;
  const lines = [`  ? [${question.header}]${of} ${question.question}`];
  const options = question.options ?? [];
  options.forEach((option, index) => {
    const description = option.description === undefined ? '' : ` — ${option.description}`;
    lines.push(`    ${index + 1}. ${option.label}${description}`);
  });
  if (options.length === 0) lines.push('  (your answer; empty for none)');
  else if (question.multiSelect === true) {
    lines.push('  (numbers separated by commas, or your own answer; empty for none)');
  } else lines.push('  (a number, or your own answer; empty for none)');
  return `${lines.join('\n')}\n`;
}

/**
 * The answer a typed line gives a question: `''` for an empty line, the label of each choice a
 * line of numbers picks (an array for a multi-select question), else the line itself, as the
 * person's own answer. A line of numbers that picks no choice, or several for a question that
 * takes one, is a `problem` to show before asking again.
 *
 * @example
 * answerOfLine({ header: 'Pick', question: 'Which?', options: [{ label: 'a' }, { label: 'b' }] }, '2'); // { answer: 'b' }
 * answerOfLine({ header: 'Pick', question: 'Which?', options: [{ label: 'a' }, { label: 'b' }] }, '3'); // { problem: 'pick 1 to 2, or type your own answer' }
 */
export function answerOfLine(
  question: UserQuestion,
  line: string,
): { answer: string | string[] } | { problem: string } {
  const text = line.trim();
  const options = question.options ?? [];
  if (text === '') return { answer: '' };
  if (options.length === 0 || !/^\d+(\s*,\s*\d+)*$/.test(text)) return { answer: text };
  const picked = [...new Set(text.split(',').map((number) => Number(number.trim())))];
  if (picked.some((number) => number < 1 || number > options.length)) {
    return { problem: `pick 1 to ${options.length}, or type your own answer` };
  }
  const labels = picked.map((number) => options[number - 1]!.label);
  if (question.multiSelect === true) return { answer: labels };
  if (labels.length > 1) return { problem: 'pick one number: this question takes one choice' };
  return { answer: labels[0]! };
}
