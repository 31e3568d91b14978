import type * as z from 'zod';

/**
 * Turns a failed schema check into a message the model can act on: one line per failing field,
 * naming its path (`edits[0].old_string`, or `(input)` for the whole input) and what is wrong.
 *
 * @example
 * const result = schema.safeParse(call.input);
 * if (!result.success) return formatInputIssues('read_file', result.error.issues);
 * // "invalid input for tool 'read_file':\n- path: Invalid input: expected string, received undefined\n…"
 */
export function formatInputIssues(toolName: string, issues: readonly z.core.$ZodIssue[]): string {
  return [
    `invalid input for tool '${toolName}':`,
    ...formatIssueLines(issues),
    'Fix these fields and call the tool again.',
  ].join('\n');
}

/**
 * One line per failing field: its path and what is wrong.
 *
 * @example
 * formatIssueLines(result.error.issues); // ['- path: Invalid input: expected string, received undefined']
 */
export function formatIssueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `- ${formatPath(issue.path)}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(input)';
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}
