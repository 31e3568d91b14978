import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveInWorkspace } from '../resolveInWorkspace.js';
import { cancelledBeforeWriting, describeFsError } from './describeFsError.js';
import { trackFileChange } from './trackChanges.js';
import { writeFileAtomically } from './writeFileAtomically.js';

const inputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root'),
  old_string: z
    .string()
    .min(1)
    .describe(
      'Exact text to replace, including whitespace; must occur exactly once unless replace_all',
    ),
  new_string: z.string().describe('Text to put in its place'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string'),
});

/**
 * The `edit_file` tool: replaces an exact piece of text in a file. The text must occur once
 * (or `replace_all` be set); otherwise the error says whether it was missing or how many times it
 * occurs, so the model can add context and try again. The file is rewritten atomically, keeping
 * its mode (see {@link writeFileAtomically}).
 *
 * @example
 * const registry = createToolRegistry([createEditFileTool()]);
 * await runToolCall(registry, {
 *   id: '1',
 *   name: 'edit_file',
 *   input: { path: 'src/a.ts', old_string: 'let x = 1;', new_string: 'const x = 1;' },
 * }, { workspace });
 */
export function createEditFileTool(): Tool<typeof inputSchema> {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace exact text in a file of the workspace. old_string must match the file exactly (whitespace and indentation included) and occur once; add surrounding lines to make it unique, or set replace_all to change every occurrence.',
    input: inputSchema,
    mutating: true,
    edit: true,
    async execute({ path, old_string, new_string, replace_all = false }, ctx) {
      const { signal } = ctx;
      if (old_string === new_string) {
        throw new Error('old_string and new_string are the same; nothing would change');
      }
      const target = await resolveInWorkspace(ctx.workspace, path);
      const { absolute, display } = target;
      let text: string;
      try {
        text = await readFile(absolute, { encoding: 'utf8', signal });
      } catch (error) {
        throw describeFsError(error, display);
      }
      const count = countOccurrences(text, old_string);
      if (count === 0) {
        throw new Error(
          `old_string was not found in '${display}'; read the file and copy the text exactly, including whitespace and indentation`,
        );
      }
      if (count > 1 && !replace_all) {
        throw new Error(
          `old_string matches ${count} places in '${display}'; add surrounding lines to old_string so it matches exactly one, or set replace_all to true`,
        );
      }
      // split/join rather than String#replace: `$&` and friends in new_string must stay literal.
      const edited = replace_all
        ? text.split(old_string).join(new_string)
        : replaceFirst(text, old_string, new_string);
      const reportWrite = await trackFileChange(ctx, target);
      try {
        await writeFileAtomically(absolute, edited, { signal });
      } catch (error) {
        throw signal.aborted ? cancelledBeforeWriting(display) : describeFsError(error, display);
      }
      reportWrite();
      const replaced = replace_all ? count : 1;
      return `edited '${display}': replaced ${replaced} occurrence${replaced === 1 ? '' : 's'}`;
    },
  });
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) {
    count += 1;
  }
  return count;
}

function replaceFirst(text: string, search: string, replacement: string): string {
  const at = text.indexOf(search);
  return text.slice(0, at) + replacement + text.slice(at + search.length);
}
