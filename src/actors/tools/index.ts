/**
 * The tool side of the agent: defining tools, a registry, running a call to an outcome, and the
 * built-in workspace tools.
 *
 * @example
 * import { createBuiltinTools, createToolRegistry, runToolCall } from './actors/tools/index.js';
 *
 * const registry = createToolRegistry(createBuiltinTools());
 * const outcome = await runToolCall(registry, call, { workspace: process.cwd(), signal });
 */
export { type BashToolOptions, createBashTool } from './builtins/createBashTool.js';
export { type BuiltinToolsOptions, createBuiltinTools } from './builtins/createBuiltinTools.js';
export { createEditFileTool } from './builtins/createEditFileTool.js';
export { createListFilesTool, type ListFilesToolOptions } from './builtins/createListFilesTool.js';
export { createReadFileTool, type ReadFileToolOptions } from './builtins/createReadFileTool.js';
export { createWriteFileTool } from './builtins/createWriteFileTool.js';
export {
  runShellCommand,
  type ShellCommandOptions,
  type ShellCommandResult,
} from './builtins/runShellCommand.js';
export { createToolRegistry, type ToolRegistry } from './createToolRegistry.js';
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolOptions,
} from './defineTool.js';
export { formatInputIssues } from './formatInputIssues.js';
export {
  resolveInWorkspace,
  resolveWorkspaceRoot,
  type WorkspacePath,
} from './resolveInWorkspace.js';
export { type RunToolCallOptions, runToolCall } from './runToolCall.js';
export { DEFAULT_SANDBOX_DENY_READ, type SandboxOptions } from './sandbox/sandboxOptions.js';
