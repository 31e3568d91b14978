import { ASK_USER_DEFINITION } from './askUser.js';
import type { SubagentSpec, ToolSpec } from './config.js';
import { subagentToolDefinition } from './subagents.js';
import type { ToolDefinition } from './messages.js';

/**
 * The Messages API's rule for tool names: 1 to 64 letters, digits, `_` or `-`.
 *
 * @example
 * TOOL_NAME_PATTERN.test('read_file'); // true
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Tools Loom treats as mutating when no spec says otherwise.
 *
 * @example
 * DEFAULT_MUTATING_TOOLS.has('bash'); // true
 */
export const DEFAULT_MUTATING_TOOLS: ReadonlySet<string> = new Set([
  'edit_file',
  'write_file',
  'bash',
]);

/**
 * Whether a call of this tool may change the workspace. The spec's flag wins; a tool without a
 * spec is mutating when named `edit_file`, `write_file` or `bash` (Loom's default).
 *
 * @example
 * isMutatingTool('read_file', []); // false
 * isMutatingTool('deploy', [{ name: 'deploy', mutating: true }]); // true
 */
export function isMutatingTool(name: string, specs: readonly ToolSpec[]): boolean {
  const spec = findSpec(name, specs);
  return spec?.mutating ?? DEFAULT_MUTATING_TOOLS.has(name);
}

/**
 * Whether a call of this tool is an edit, which `acceptEdits` lets run without asking.
 * Defaults to "mutating, and not `bash`": a shell command can do anything, an edit cannot.
 *
 * @example
 * isEditTool('write_file', []); // true
 * isEditTool('bash', []); // false
 */
export function isEditTool(name: string, specs: readonly ToolSpec[]): boolean {
  const spec = findSpec(name, specs);
  return spec?.edit ?? (isMutatingTool(name, specs) && name !== 'bash');
}

/**
 * Whether every call of this tool waits for approval, whatever the mode: only when its spec says
 * `alwaysAsk`.
 *
 * @example
 * alwaysAsks('bash', [{ name: 'bash', alwaysAsk: true }]); // true
 */
export function alwaysAsks(name: string, specs: readonly ToolSpec[]): boolean {
  return findSpec(name, specs)?.alwaysAsk === true;
}

/**
 * Whether a call of this tool that was running when the process stopped may simply run again: a
 * read-only tool, or one its spec declares `idempotent`.
 *
 * @example
 * isRerunnableTool('read_file', []); // true
 * isRerunnableTool('write_file', []); // false
 */
export function isRerunnableTool(name: string, specs: readonly ToolSpec[]): boolean {
  return !isMutatingTool(name, specs) || findSpec(name, specs)?.idempotent === true;
}

/**
 * The tools as the Messages API wants them, for specs that carry an input schema.
 *
 * @example
 * toToolDefinitions([{ name: 'ls', description: 'List', inputSchema: { type: 'object' } }]);
 * // [{ name: 'ls', description: 'List', input_schema: { type: 'object' } }]
 */
export function toToolDefinitions(specs: readonly ToolSpec[]): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const spec of specs) {
    if (!spec.inputSchema) continue;
    const definition: ToolDefinition = { name: spec.name, input_schema: spec.inputSchema };
    if (spec.description !== undefined) definition.description = spec.description;
    definitions.push(definition);
  }
  return definitions;
}

/**
 * The tool definitions a request offers: the specs', and after them the built-in `ask_user` tool
 * when it is on and the `task` tool when there are subagents.
 *
 * @example
 * offeredToolDefinitions(config.tools, true).at(-1)?.name; // 'ask_user'
 */
export function offeredToolDefinitions(
  specs: readonly ToolSpec[],
  askUser: boolean,
  agents?: Readonly<Record<string, SubagentSpec>>,
): ToolDefinition[] {
  const definitions = toToolDefinitions(specs);
  if (askUser) definitions.push(ASK_USER_DEFINITION);
  if (agents !== undefined && Object.keys(agents).length > 0) {
    definitions.push(subagentToolDefinition(agents));
  }
  return definitions;
}

function findSpec(name: string, specs: readonly ToolSpec[]): ToolSpec | undefined {
  for (const spec of specs) if (spec.name === name) return spec;
  return undefined;
}
