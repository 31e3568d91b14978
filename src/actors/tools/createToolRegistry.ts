import {
  AgentStatechartError,
  isMutatingTool,
  type ToolDefinition,
  type ToolSpec,
} from '../../machine/index.js';
import type { Tool } from './defineTool.js';

/**
 * A fixed set of tools with unique names, and the two views of them the rest of the package needs:
 * specs for the chart and definitions for the Messages API.
 *
 * @example
 * const registry = createToolRegistry(createBuiltinTools());
 * const core = new AgentCore({ tools: registry.specs() });
 * const request = { model, maxTokens, messages, tools: registry.definitions() };
 */
export interface ToolRegistry {
  /** The tools, in the order given. */
  readonly tools: readonly Tool[];
  /** The tool of that name, if any. */
  get(name: string): Tool | undefined;
  /** The tool names, in order. */
  names(): string[];
  /**
   * What the chart needs: name, mutating, edit, alwaysAsk, idempotent, description and input
   * JSON Schema.
   * Made once and shared (do not mutate them).
   */
  specs(): ToolSpec[];
  /** What the Messages API takes in `tools`. */
  definitions(): ToolDefinition[];
  /**
   * Whether a call of that name counts as mutating: the tool's own flag, or Loom's default for a
   * name the registry does not know. Pass it to `gitAutoCommit` as `isMutating`.
   */
  isMutating(name: string): boolean;
}

/**
 * Builds a registry. Throws an {@link AgentStatechartError} with code `DUPLICATE_TOOL` when two
 * tools share a name, because the model could not tell them apart.
 *
 * @example
 * const registry = createToolRegistry([...createBuiltinTools(), myTool]);
 * registry.names(); // ['read_file', 'list_files', 'edit_file', 'write_file', 'bash', 'my_tool']
 */
export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) {
      throw new AgentStatechartError(
        'DUPLICATE_TOOL',
        `two tools are named '${tool.name}'; give each tool a unique name or leave one out`,
      );
    }
    byName.set(tool.name, tool);
  }
  const ordered = Object.freeze([...tools]);
  // Made once and shared: every agent built from this registry then shares one resolved config's
  // tool definitions (the chart never mutates them), instead of copying the schemas per agent.
  let specs: ToolSpec[] | undefined;
  return {
    tools: ordered,
    get: (name) => byName.get(name),
    names: () => ordered.map((tool) => tool.name),
    specs: () =>
      (specs ??= ordered.map((tool) => {
        const spec: ToolSpec = {
          name: tool.name,
          mutating: tool.mutating,
          edit: tool.edit,
          description: tool.description,
          inputSchema: structuredClone(tool.inputSchema),
        };
        if (tool.alwaysAsk) spec.alwaysAsk = true;
        if (tool.idempotent) spec.idempotent = true;
        return spec;
      })),
    definitions: () =>
      ordered.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: structuredClone(tool.inputSchema),
      })),
    // The tool's own flag, else the chart's rule for a name it does not know.
    isMutating: (name) => byName.get(name)?.mutating ?? isMutatingTool(name, []),
  };
}

/**
 * A registry that reads through to whichever one `current` returns, for tools that change while
 * the agent runs (an MCP server's list): a call looks its tool up when it starts.
 *
 * @example
 * let registry = createToolRegistry(tools);
 * const live = liveToolRegistry(() => registry);
 * registry = createToolRegistry([...tools, ...servers.tools()]); // `live` now answers with these
 */
export function liveToolRegistry(current: () => ToolRegistry): ToolRegistry {
  return {
    get tools() {
      return current().tools;
    },
    get: (name) => current().get(name),
    names: () => current().names(),
    specs: () => current().specs(),
    definitions: () => current().definitions(),
    isMutating: (name) => current().isMutating(name),
  };
}
