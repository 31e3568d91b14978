/**
 * What a commit message is made from.
 *
 * @example
 * const info: CommitMessageInfo = { tools: ['edit_file'], files: ['src/a.ts'] };
 */
export interface CommitMessageInfo {
  /** The successful mutating tools of the response, without repeats, in call order. */
  tools: readonly string[];
  /** The paths the commit changes, relative to the repository root. */
  files: readonly string[];
}

const SUBJECT_LIMIT = 72;
const BODY_FILE_LIMIT = 100;

/**
 * The default auto-commit message: a subject naming the tools and as many files as fit in 72
 * characters, and a body listing the tools and (up to 100) files.
 *
 * @example
 * formatCommitMessage({ tools: ['edit_file', 'bash'], files: ['a.txt', 'b.txt'] });
 * // 'agent: edit_file, bash changed a.txt, b.txt\n\nTools: edit_file, bash\nFiles:\n- a.txt\n- b.txt\n'
 */
export function formatCommitMessage({ tools, files }: CommitMessageInfo): string {
  const base = `agent: ${tools.join(', ')} changed `;
  let subject = `${base}${files.length} file${files.length === 1 ? '' : 's'}`;
  for (let shown = files.length; shown >= 1; shown -= 1) {
    const rest = files.length - shown;
    const candidate = `${base}${files.slice(0, shown).join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
    if (candidate.length <= SUBJECT_LIMIT) {
      subject = candidate;
      break;
    }
  }
  const listed = files.slice(0, BODY_FILE_LIMIT).map((file) => `- ${file}`);
  if (files.length > BODY_FILE_LIMIT) listed.push(`- … and ${files.length - BODY_FILE_LIMIT} more`);
  return `${subject}\n\nTools: ${tools.join(', ')}\nFiles:\n${listed.join('\n')}\n`;
}
