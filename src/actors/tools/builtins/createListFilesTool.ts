import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveInWorkspace } from '../resolveInWorkspace.js';
import { describeFsError } from './describeFsError.js';

/**
 * Limits of `list_files`.
 *
 * @example
 * const options: ListFilesToolOptions = { maxEntries: 200, skip: ['.git', 'node_modules', 'dist'] };
 */
export interface ListFilesToolOptions {
  /** Most entries returned by one call. Default 1000. */
  maxEntries?: number;
  /** Directory names never listed nor entered. Default `.git` and `node_modules`. */
  skip?: readonly string[];
}

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .optional()
    .describe('Directory relative to the workspace root. Default the root itself'),
  recursive: z.boolean().optional().describe('Also list the contents of subdirectories'),
});

/**
 * The `list_files` tool: lists a directory of the workspace, one path per line relative to the
 * workspace root, directories ending in `/`. Recursion does not follow symbolic links, and the
 * listing stops with a note after `maxEntries`.
 *
 * @example
 * const registry = createToolRegistry([createListFilesTool({ maxEntries: 200 })]);
 * await runToolCall(registry, { id: '1', name: 'list_files', input: { path: 'src', recursive: true } }, { workspace });
 */
export function createListFilesTool(options: ListFilesToolOptions = {}): Tool<typeof inputSchema> {
  const maxEntries = options.maxEntries ?? 1000;
  const skip = new Set(options.skip ?? ['.git', 'node_modules']);
  return defineTool({
    name: 'list_files',
    description: `List the files and directories at a path in the workspace (directories end in '/').${skip.size > 0 ? ` Skips ${[...skip].join(', ')}.` : ''} At most ${maxEntries} entries.`,
    input: inputSchema,
    mutating: false,
    async execute({ path = '.', recursive = false }, { workspace, signal }) {
      const target = await resolveInWorkspace(workspace, path);
      try {
        if (!(await stat(target.absolute)).isDirectory()) {
          throw new Error(
            `'${target.display}' is a file, not a directory; use read_file to read it`,
          );
        }
      } catch (error) {
        throw describeFsError(error, target.display);
      }
      const prefix = target.display === '.' ? '' : `${target.display}/`;
      const entries: string[] = [];
      let truncated = false;

      const walk = async (absolute: string, relative: string): Promise<void> => {
        signal.throwIfAborted();
        const children = await readdir(absolute, { withFileTypes: true });
        children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const child of children) {
          if (skip.has(child.name)) continue;
          if (entries.length >= maxEntries) {
            truncated = true;
            return;
          }
          const childRelative = `${relative}${child.name}`;
          // Dirent reports a symbolic link as a link, never as a directory, so links are not entered.
          if (child.isDirectory()) {
            entries.push(`${childRelative}/`);
            if (recursive) await walk(join(absolute, child.name), `${childRelative}/`);
          } else {
            entries.push(childRelative);
          }
          if (truncated) return;
        }
      };
      await walk(target.absolute, prefix);

      if (entries.length === 0) return `[${target.display} is empty]`;
      const listing = entries.join('\n');
      return truncated
        ? `${listing}\n\n[stopped after ${maxEntries} entries; list a subdirectory${recursive ? ' or leave recursive off' : ''} to see the rest]`
        : listing;
    },
  });
}
