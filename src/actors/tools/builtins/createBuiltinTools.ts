import type { Tool } from '../defineTool.js';
import { type BashToolOptions, createBashTool } from './createBashTool.js';
import { createEditFileTool } from './createEditFileTool.js';
import { createListFilesTool, type ListFilesToolOptions } from './createListFilesTool.js';
import { createReadFileTool, type ReadFileToolOptions } from './createReadFileTool.js';
import { createWriteFileTool } from './createWriteFileTool.js';

/**
 * Settings of the built-in tools, per tool.
 *
 * @example
 * const options: BuiltinToolsOptions = {
 *   bash: { timeoutMs: 30_000, sandbox: { allowNetwork: ['registry.npmjs.org:443'] } },
 *   listFiles: { maxEntries: 300 },
 * };
 */
export interface BuiltinToolsOptions {
  readFile?: ReadFileToolOptions;
  listFiles?: ListFilesToolOptions;
  bash?: BashToolOptions;
}

/**
 * All built-in tools, confined to the workspace root given to each call: `read_file`,
 * `list_files` (read-only), `edit_file`, `write_file` (mutating edits, written atomically) and
 * `bash` (mutating, not an edit; its commands run in an OS sandbox, see
 * {@link BashToolOptions.sandbox}).
 *
 * @example
 * const registry = createToolRegistry(createBuiltinTools({ bash: { timeoutMs: 60_000 } }));
 * registry.names(); // ['read_file', 'list_files', 'edit_file', 'write_file', 'bash']
 */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): Tool[] {
  return [
    createReadFileTool(options.readFile),
    createListFilesTool(options.listFiles),
    createEditFileTool(),
    createWriteFileTool(),
    createBashTool(options.bash),
  ];
}
