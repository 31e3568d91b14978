import * as z from 'zod';
import {
  AgentStatechartError,
  errorMessage,
  type OutputSpec,
  TOOL_NAME_PATTERN,
  type ToolDefinition,
} from '../../machine/index.js';
import type { SandboxStatus } from './sandbox/sandboxStatus.js';

/**
 * How long a tool call may run when neither the tool nor the caller says otherwise: two minutes.
 *
 * @example
 * const deadline = Date.now() + DEFAULT_TOOL_TIMEOUT_MS;
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/**
 * The longest timeout a tool call may have: `setTimeout` overflows beyond it and fires at once,
 * so longer timeouts are refused.
 *
 * @example
 * Math.min(requestedMs, MAX_TIMEOUT_MS);
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * What a running tool gets besides its input.
 *
 * @example
 * const tool = defineTool({
 *   name: 'pwd',
 *   description: 'Print the workspace root',
 *   input: z.object({}),
 *   mutating: false,
 *   execute: (_input, ctx) => ctx.workspace,
 * });
 */
export interface ToolContext {
  /** Aborted when the caller cancels the call or its timeout passes; stop work when it fires. */
  readonly signal: AbortSignal;
  /** Absolute path of the workspace root the tool must stay inside. */
  readonly workspace: string;
  /** The `tool_use` id of this call. */
  readonly callId: string;
  /** Reports progress to the caller (for display); ignored once the call has ended. */
  reportProgress(progress: unknown): void;
  /**
   * Names files this call changed, relative to the workspace root (or absolute inside it); paths
   * outside the workspace are dropped. A successful outcome carries them as `changedPaths`, and
   * the git auto-commit commits them and nothing else. Report only files that had no uncommitted
   * changes before the call: a change on top of the user's own cannot be told apart from it.
   */
  reportChangedPaths(paths: readonly string[]): void;
}

/**
 * What `defineTool` takes. The type of `execute`'s input is inferred from the `input` schema.
 *
 * @example
 * const options: ToolOptions<z.ZodObject<{ text: z.ZodString }>> = {
 *   name: 'echo',
 *   description: 'Repeat the text',
 *   input: z.object({ text: z.string() }),
 *   mutating: false,
 *   execute: ({ text }) => text,
 * };
 */
export interface ToolOptions<Schema extends z.ZodType> {
  /** Name the model calls the tool by: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** Zod schema of the input; must describe a JSON object. */
  input: Schema;
  /** Whether the tool changes the workspace (runs the post-tools hook, gated by permissions). */
  mutating: boolean;
  /** Whether the tool counts as an edit for `acceptEdits`. Defaults to `mutating && name !== 'bash'`. */
  edit?: boolean;
  /**
   * Whether every call waits for a person's approval, whatever the permission mode or allow rules
   * (deny rules and `plan` mode still refuse it), for a tool whose calls a person must see
   * every time. Default false.
   */
  alwaysAsk?: boolean;
  /**
   * Whether running a call twice has the same effect as running it once. A mutating call that was
   * running when the process stopped runs again on resume only when this is true; otherwise the
   * model is told it may or may not have taken effect. Default false.
   */
  idempotent?: boolean;
  /** Longest a call may run, in milliseconds. Defaults to {@link DEFAULT_TOOL_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * Does the work. Returns (or resolves to) a string, or any JSON-serialisable value; throws to
   * report a failure, whose message the model reads.
   */
  execute: (input: z.output<Schema>, ctx: ToolContext) => unknown;
}

/**
 * A tool ready for a registry: its options with defaults applied and its input schema already
 * converted to JSON Schema.
 *
 * @example
 * const tools: Tool[] = [
 *   defineTool({
 *     name: 'now',
 *     description: 'Current time as ISO 8601',
 *     input: z.object({}),
 *     mutating: false,
 *     execute: () => new Date().toISOString(),
 *   }),
 * ];
 */
export interface Tool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: Schema;
  /** JSON Schema of the input, as the Messages API takes it. */
  readonly inputSchema: ToolDefinition['input_schema'];
  readonly mutating: boolean;
  readonly edit: boolean;
  readonly alwaysAsk: boolean;
  readonly idempotent: boolean;
  readonly timeoutMs: number;
  /**
   * For a tool that runs shell commands (the built-in `bash`): whether they run in an OS sandbox.
   * `createAgent` reports it as `agent.sandbox`.
   */
  readonly sandbox?: SandboxStatus;
  execute: (input: z.output<Schema>, ctx: ToolContext) => unknown;
}

/**
 * Defines a tool. Checks the definition at once, so a mistake fails at start-up with an
 * {@link AgentStatechartError} (`INVALID_TOOL_DEFINITION`) rather than when the model first calls it.
 *
 * @example
 * import * as z from 'zod';
 *
 * const shout = defineTool({
 *   name: 'shout',
 *   description: 'Return the text in capitals',
 *   input: z.object({ text: z.string().describe('Text to shout') }),
 *   mutating: false,
 *   timeoutMs: 5_000,
 *   async execute({ text }, { signal }) {
 *     signal.throwIfAborted();
 *     return text.toUpperCase();
 *   },
 * });
 */
export function defineTool<Schema extends z.ZodType>(options: ToolOptions<Schema>): Tool<Schema> {
  const { name, description, input, mutating, execute } = options;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw invalid(
      `tool name ${JSON.stringify(name)} is not valid; use 1 to 64 letters, digits, '_' or '-'`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid(`tool '${name}' has no description; describe what it does for the model`);
  }
  if (typeof mutating !== 'boolean') {
    throw invalid(`tool '${name}' must say whether it changes the workspace: set mutating`);
  }
  if (typeof execute !== 'function') {
    throw invalid(`tool '${name}' has no execute function`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw invalid(
      `tool '${name}' has timeoutMs ${timeoutMs}; use a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`,
    );
  }
  return {
    name,
    description,
    input,
    inputSchema: toInputSchema(name, input),
    mutating,
    edit: options.edit ?? (mutating && name !== 'bash'),
    alwaysAsk: options.alwaysAsk === true,
    idempotent: options.idempotent === true,
    timeoutMs,
    execute,
  };
}

/**
 * A turn's answer as `createAgent` and `agent.run` take it: a zod schema of an object, the
 * chart's {@link OutputSpec} (a JSON Schema), or a spec whose schema is a zod one (to set `via`,
 * `name` or `description` too).
 *
 * @example
 * const output: OutputOption = { schema: z.object({ verdict: z.enum(['approve', 'reject']) }), via: 'format' };
 */
export type OutputOption<Schema extends z.ZodType = z.ZodType> =
  Schema | OutputSpec | (Omit<OutputSpec, 'schema'> & { schema: Schema });

/**
 * The chart's {@link OutputSpec} of a turn's answer: a zod schema of an object becomes its JSON
 * Schema (as a tool's input does), a spec is taken as it is.
 *
 * @example
 * outputSpecOf(z.object({ verdict: z.enum(['approve', 'reject']) }));
 * // { schema: { type: 'object', properties: { verdict: { type: 'string', enum: [...] } }, required: ['verdict'] } }
 */
export function outputSpecOf(output: OutputOption): OutputSpec {
  if (output instanceof z.ZodType) return { schema: toInputSchema('final_answer', output) };
  if (output.schema instanceof z.ZodType) {
    return { ...output, schema: toInputSchema(output.name ?? 'final_answer', output.schema) };
  }
  return output as OutputSpec;
}

/**
 * The zod schema an {@link OutputOption} gives, to parse the answer with; `undefined` for a JSON
 * Schema.
 *
 * @example
 * zodSchemaOf({ schema: z.object({ ok: z.boolean() }), via: 'format' }); // the z.object
 */
export function zodSchemaOf(output: OutputOption): z.ZodType | undefined {
  if (output instanceof z.ZodType) return output;
  return output.schema instanceof z.ZodType ? output.schema : undefined;
}

function toInputSchema(name: string, input: z.ZodType): ToolDefinition['input_schema'] {
  if (!(input instanceof z.ZodType)) {
    throw invalid(`tool '${name}' input must be a zod 4 schema such as z.object({ ... })`);
  }
  let schema: Record<string, unknown>;
  try {
    // The model writes the input, so the schema it sees is the input side (defaults optional).
    schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'throw' });
  } catch (error) {
    throw invalid(
      `tool '${name}' input schema cannot be expressed as JSON Schema (${errorMessage(error)}); use JSON types only (no dates, transforms to non-JSON, functions)`,
      error,
    );
  }
  if (schema.type !== 'object') {
    throw invalid(
      `tool '${name}' input schema must describe an object (the Messages API requires it); wrap it: z.object({ ... })`,
    );
  }
  // The API does not need the dialect marker; leaving it out keeps definitions small and portable.
  const { $schema: _dialect, ...rest } = schema;
  return { ...rest, type: 'object' };
}

function invalid(message: string, cause?: unknown): AgentStatechartError {
  return new AgentStatechartError('INVALID_TOOL_DEFINITION', message, { cause });
}
