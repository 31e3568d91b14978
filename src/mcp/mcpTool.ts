/**
 * One tool of an MCP server as one of the agent's tools: named `mcp__<server>__<tool>`, its JSON
 * Schema sent to the model as the server gave it and checked before every call, its annotations
 * read as the chart's flags.
 */
import * as z from 'zod';
import { DEFAULT_TOOL_TIMEOUT_MS, type Tool, type ToolContext } from '../actors/index.js';
import { TOOL_NAME_PATTERN, type ToolDefinition } from '../machine/index.js';
import type { McpToolSettings } from './mcpServerConfig.js';

/**
 * A tool as an MCP server lists it (`tools/list`), as far as this package reads it.
 *
 * @example
 * const listed: McpListedTool = { name: 'search', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
 */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/**
 * A validator of one JSON Schema (the MCP SDK's ajv provider makes them).
 *
 * @example
 * const check: InputValidator = (input) => ({ valid: true, errorMessage: undefined });
 */
export type InputValidator = (
  input: unknown,
) => { valid: true; errorMessage?: undefined } | { valid: false; errorMessage: string };

/** What `mcpTool` needs besides the listed tool. */
export interface McpToolParts {
  server: string;
  settings: McpToolSettings | undefined;
  /** The server's default timeout for its tools. */
  toolTimeoutMs: number | undefined;
  /** Compiles the schema, or throws why it cannot. */
  validator: (schema: Record<string, unknown>) => InputValidator;
  /** Calls the tool on the server (by its own name) and answers as a tool's `execute` does. */
  call: (name: string, input: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;
}

/**
 * The agent's name of a server's tool, as the Claude Agent SDK names them.
 *
 * @example
 * mcpToolName('github', 'create_issue'); // 'mcp__github__create_issue'
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/**
 * The agent's tool for a listed one, or why the model cannot be offered it (a name the API
 * refuses, a schema it refuses or that does not compile).
 *
 * @example
 * const made = mcpTool(listed, { server: 'docs', settings: undefined, toolTimeoutMs: undefined, validator, call });
 * if ('problem' in made) console.warn(made.problem);
 */
export function mcpTool(
  listed: McpListedTool,
  parts: McpToolParts,
): { tool: Tool } | { problem: string } {
  const name = mcpToolName(parts.server, listed.name);
  const what = `the tool '${listed.name}' of the MCP server '${parts.server}'`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    return {
      problem: `${what} is left out: its name as the model sees it, '${name}', is not 1 to 64 letters, digits, '_' or '-' (shorten the server's name in mcpServers)`,
    };
  }
  const schemaProblem = apiSchemaProblem(listed.inputSchema);
  if (schemaProblem !== null) {
    return {
      problem: `${what} is left out: the Messages API refuses its input schema (${schemaProblem})`,
    };
  }
  let validate: InputValidator;
  try {
    validate = parts.validator(listed.inputSchema);
  } catch (error) {
    return {
      problem: `${what} is left out: its input schema does not compile (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const { annotations = {} } = listed;
  const settings = parts.settings ?? {};
  const mutating = settings.mutating ?? annotations.readOnlyHint !== true;
  return {
    tool: {
      name,
      description: describe(listed, parts.server),
      input: inputCheck(validate),
      inputSchema: listed.inputSchema as ToolDefinition['input_schema'],
      mutating,
      edit: settings.edit ?? false,
      alwaysAsk: settings.alwaysAsk ?? false,
      idempotent: settings.idempotent ?? annotations.idempotentHint === true,
      timeoutMs: settings.timeoutMs ?? parts.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      execute: (input: unknown, ctx: ToolContext) =>
        parts.call(listed.name, input as Record<string, unknown>, ctx),
    },
  };
}

/** What the model reads about the tool: the server's description, else its title, else a line. */
function describe(listed: McpListedTool, server: string): string {
  const text = listed.description ?? listed.title ?? listed.annotations?.title;
  return text !== undefined && text.trim() !== ''
    ? text
    : `The tool '${listed.name}' of the MCP server '${server}'.`;
}

/**
 * The API takes an input schema of type `object` with no `oneOf`, `anyOf` or `allOf` at its top
 * level; said here, at connection time, rather than as a 400 at the first model call.
 */
function apiSchemaProblem(schema: Record<string, unknown>): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'it is not an object';
  }
  if (schema.type !== 'object') return `its type is ${JSON.stringify(schema.type)}, not 'object'`;
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (schema[keyword] !== undefined) return `it has '${keyword}' at its top level`;
  }
  return null;
}

/** The schema check as the zod schema `runToolCall` parses inputs with: one issue, ajv's words. */
function inputCheck(validate: InputValidator): z.ZodType<Record<string, unknown>> {
  return z.custom<Record<string, unknown>>().superRefine((input, ctx) => {
    const result = validate(input);
    if (!result.valid) ctx.addIssue({ code: 'custom', message: result.errorMessage });
  });
}
