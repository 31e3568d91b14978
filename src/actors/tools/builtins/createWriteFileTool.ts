import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveInWorkspace } from '../resolveInWorkspace.js';
import { cancelledBeforeWriting, describeFsError } from './describeFsError.js';
import { trackFileChange } from './trackChanges.js';
import { writeFileAtomically } from './writeFileAtomically.js';

const inputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root'),
  content: z.string().describe('The whole new content of the file'),
});

/**
 * The `write_file` tool: creates or overwrites a file of the workspace with the given content,
 * creating missing parent directories. The write is atomic (see {@link writeFileAtomically}): a
 * cancel before it commits leaves the file as it was, and a hard link to a file outside the
 * workspace is replaced, never written through.
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
    async execute({ path, content }, ctx) {
      const { signal } = ctx;
      const target = await resolveInWorkspace(ctx.workspace, path);
      const { absolute, display } = target;
      const reportWrite = await trackFileChange(ctx, target);
      let created: boolean;
      try {
        await mkdir(dirname(absolute), { recursive: true });
        ({ created } = await writeFileAtomically(absolute, content, { signal }));
      } catch (error) {
        throw signal.aborted ? cancelledBeforeWriting(display) : describeFsError(error, display);
      }
      reportWrite();
      const bytes = Buffer.byteLength(content, 'utf8');
      return `${created ? 'created' : 'overwrote'} '${display}' (${bytes} byte${bytes === 1 ? '' : 's'})`;
    },
  });
}
