import { readFile, stat } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, type Tool } from '../defineTool.js';
import { resolveInWorkspace } from '../resolveInWorkspace.js';
import { toolContent } from '../toolContent.js';
import { describeFsError } from './describeFsError.js';
import { MAX_IMAGE_BYTES, mediaBlock, mediaTypeOf } from './fileMedia.js';

/**
 * Limits of `read_file`.
 *
 * @example
 * const options: ReadFileToolOptions = { maxLines: 500, maxFileBytes: 1_000_000 };
 */
export interface ReadFileToolOptions {
  /** Most lines returned by one call (and the default `limit`). Default 2000. */
  maxLines?: number;
  /** Larger files are refused, so one call cannot flood the context. Default 10 MiB. */
  maxFileBytes?: number;
}

const inputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('First line to read, counting from 1. Default 1'),
  limit: z.number().int().min(1).optional().describe('Number of lines to read'),
});

/**
 * The `read_file` tool: returns a text file of the workspace, or a window of its lines. When more
 * lines follow, a closing note says which `offset` reads on. An image (PNG, JPEG, GIF, WebP) or a
 * PDF, known by its first bytes, is returned as an image or document block the model sees.
 *
 * @example
 * const registry = createToolRegistry([createReadFileTool({ maxLines: 500 })]);
 * await runToolCall(registry, { id: '1', name: 'read_file', input: { path: 'README.md', offset: 10, limit: 20 } }, { workspace });
 */
export function createReadFileTool(options: ReadFileToolOptions = {}): Tool<typeof inputSchema> {
  const maxLines = options.maxLines ?? 2000;
  const maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  return defineTool({
    name: 'read_file',
    description: `Read a file in the workspace: a text file (at most ${maxLines} lines per call; use offset and limit to read a long file in parts), an image (PNG, JPEG, GIF, WebP), which you see, or a PDF, which you read whole.`,
    input: inputSchema,
    mutating: false,
    async execute({ path, offset = 1, limit }, { workspace, signal }) {
      const { absolute, display } = await resolveInWorkspace(workspace, path);
      let bytes: Buffer;
      try {
        const info = await stat(absolute);
        if (info.isFile() && info.size > maxFileBytes) {
          throw new Error(
            `'${display}' is ${info.size} bytes, more than read_file's limit of ${maxFileBytes}; read parts of it with bash (head, sed -n, grep)`,
          );
        }
        bytes = await readFile(absolute, { signal });
      } catch (error) {
        throw describeFsError(error, display);
      }
      const mediaType = mediaTypeOf(bytes);
      if (mediaType !== undefined) {
        // Refused before it is encoded: the API would refuse it whole.
        if (mediaType !== 'application/pdf' && bytes.length > MAX_IMAGE_BYTES) {
          throw new Error(
            `'${display}' is an image of ${bytes.length} bytes, more than the ${MAX_IMAGE_BYTES} the API takes; make a smaller copy (convert, sips) and read that`,
          );
        }
        return toolContent(mediaBlock(bytes, mediaType));
      }
      if (bytes.subarray(0, 8000).includes(0)) {
        throw new Error(
          `'${display}' looks like a binary file; read_file shows text files, images (PNG, JPEG, GIF, WebP) and PDFs`,
        );
      }
      return selectLines(
        bytes.toString('utf8'),
        display,
        offset,
        Math.min(limit ?? maxLines, maxLines),
      );
    },
  });
}

function selectLines(text: string, display: string, offset: number, limit: number): string {
  const endsWithNewline = text.endsWith('\n');
  const lines = text.split('\n');
  if (endsWithNewline) lines.pop();
  const total = lines.length;
  if (offset === 1 && total <= limit) return text;
  if (offset > total) {
    throw new Error(
      `offset ${offset} is past the end of '${display}', which has ${total} line${total === 1 ? '' : 's'}`,
    );
  }
  const end = Math.min(offset - 1 + limit, total);
  const window = lines.slice(offset - 1, end).join('\n');
  if (end < total) {
    return `${window}\n\n[lines ${offset}-${end} of ${total} shown; call read_file with offset ${end + 1} to read on]`;
  }
  return endsWithNewline ? `${window}\n` : window;
}
