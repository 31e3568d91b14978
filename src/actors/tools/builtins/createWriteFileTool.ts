import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveInWorkspace } from '../resolveInWorkspace.js';
import { describeFsError } from './describeFsError.js';

const inputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root'),
  content: z.string().describe('The whole new content of the file'),
});

/**
 * The `write_file` tool: creates or overwrites a file of the workspace with the given content,
 * creating missing parent directories.
 *
 * @example
 * const registry = createToolRegistry([createWriteFileTool()]);
 * await runToolCall(registry, { id: '1', name: 'write_file', input: { path: 'notes/todo.md', content: '- ship\n' } }, { workspace });
 */
export function createWriteFileTool(): Tool<typeof inputSchema> {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file in the workspace, or replace the whole content of an existing one. Creates missing parent directories. Prefer edit_file to change part of a file.',
    input: inputSchema,
    mutating: true,
    edit: true,
    async execute({ path, content }, { workspace, signal }) {
      const { absolute, display } = await resolveInWorkspace(workspace, path);
      try {
        const existed = await exists(absolute);
        await mkdir(dirname(absolute), { recursive: true });
        signal.throwIfAborted();
        await writeFile(absolute, content, { encoding: 'utf8', signal });
        const bytes = Buffer.byteLength(content, 'utf8');
        return `${existed ? 'overwrote' : 'created'} '${display}' (${bytes} byte${bytes === 1 ? '' : 's'})`;
      } catch (error) {
        throw describeFsError(error, display);
      }
    },
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
