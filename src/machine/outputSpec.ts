/**
 * Structured output: the form a turn's final answer takes. The model answers by calling a tool
 * whose input schema is the answer's JSON Schema (`via: 'tool'`, every model), or with its final
 * text in the API's own structured-output format (`via: 'format'`, `output_config.format`, for
 * models that have it); the chart ends the turn when the answer is valid, asks once more when the
 * model ends without it (or gives an answer that does not match), and then gives up with a
 * `DisplayError`.
 */
import type { ToolRun, TurnOutput } from './context.js';
import { type LlmResponse, messageText, type ToolDefinition } from './messages.js';
import { TOOL_NAME_PATTERN } from './toolSpecs.js';

/**
 * The form a turn's final answer must take: a JSON Schema of an object, which the model fills in
 * by calling a tool named `name` (default `final_answer`).
 *
 * @example
 * const output: OutputSpec = {
 *   schema: { type: 'object', properties: { verdict: { type: 'string', enum: ['approve', 'reject'] } }, required: ['verdict'] },
 * };
 */
export interface OutputSpec {
  /** JSON Schema of the answer; its `type` must be `'object'` (a tool's input is an object). */
  schema: Record<string, unknown>;
  /** The tool the model answers with. Default `final_answer`. */
  name?: string;
  /** What the tool tells the model. Default: to give the final answer with it, once, at the end. */
  description?: string;
  /**
   * How the model gives the answer: `'tool'` (default), by calling the answer's tool, which
   * every model can; `'format'`, as its final text, which the API constrains to the schema
   * (`output_config.format` with `type: 'json_schema'`) for the models that support structured
   * outputs. With `'format'` the request carries no answer tool, and the answer is the final
   * response's text, parsed as JSON and checked against the schema.
   */
  via?: 'tool' | 'format';
}

/** An {@link OutputSpec} with its defaults filled in. */
export interface ResolvedOutput {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  via: 'tool' | 'format';
}

/** The tool a turn's final answer is given with, when the spec names none. */
export const DEFAULT_OUTPUT_TOOL = 'final_answer';

/** How many times a turn asks the model again for an answer in the required form. */
export const OUTPUT_REPAIRS = 1;

/**
 * What is wrong with an output spec, or `null`: a schema that is not an object's, a name the API
 * refuses or one of the agent's own tools.
 *
 * @example
 * outputSpecProblem({ schema: { type: 'string' } }); // "output.schema must be the JSON Schema of an object ({ type: 'object', … })"
 */
export function outputSpecProblem(spec: unknown, toolNames: readonly string[] = []): string | null {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    return 'output must be an object { schema, name?, description? }';
  }
  const { schema, name, description } = spec as Record<string, unknown>;
  if (
    typeof schema !== 'object' ||
    schema === null ||
    (schema as Record<string, unknown>).type !== 'object'
  ) {
    return "output.schema must be the JSON Schema of an object ({ type: 'object', … })";
  }
  if (name !== undefined && (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name))) {
    return 'output.name must be a tool name: 1 to 64 letters, digits, _ or -';
  }
  const toolName = name ?? DEFAULT_OUTPUT_TOOL;
  if (toolNames.includes(toolName)) {
    return `output.name '${toolName}' is one of the agent's tools; give the answer's tool another name`;
  }
  if (description !== undefined && typeof description !== 'string') {
    return 'output.description must be a string';
  }
  const { via } = spec as Record<string, unknown>;
  if (via !== undefined && via !== 'tool' && via !== 'format') {
    return "output.via must be 'tool' (an answer tool, every model) or 'format' (the API's structured output)";
  }
  return null;
}

/**
 * The spec with its defaults.
 *
 * @example
 * resolveOutput({ schema }).name; // 'final_answer'
 */
export function resolveOutput(spec: OutputSpec): ResolvedOutput {
  return {
    name: spec.name ?? DEFAULT_OUTPUT_TOOL,
    description:
      spec.description ??
      'Give your final answer to the user’s request with this tool, once, when the work is done. Its input is the answer.',
    schema: spec.schema,
    via: spec.via ?? 'tool',
  };
}

/**
 * The tool the model answers with, as the request sends it.
 *
 * @example
 * outputToolDefinition(resolveOutput({ schema })); // { name: 'final_answer', description: '…', input_schema: schema }
 */
export function outputToolDefinition(output: ResolvedOutput): ToolDefinition {
  return {
    name: output.name,
    description: output.description,
    input_schema: output.schema as ToolDefinition['input_schema'],
  };
}

/**
 * What a response did about the turn's answer: its answer call settled by the chart itself (a
 * valid input is the answer; the call runs no tool), and the turn's output with the answer, or
 * with one more miss when the response ended with no tool call at all, or answered with input
 * that does not match. The turn's output unchanged when the response did neither.
 *
 * @example
 * const { runs, output } = settleOutputCalls(toolRuns, context.output);
 */
export function settleOutputCalls(
  runs: ToolRun[],
  output: TurnOutput | null,
  response?: LlmResponse,
): { runs: ToolRun[]; output: TurnOutput | null } {
  if (output === null) return { runs, output };
  if (output.form.via === 'format') return settleFormatAnswer(runs, output, response);
  if (runs.length === 0) return { runs, output: { ...output, misses: output.misses + 1 } };
  let answer: { value: unknown } | null = null;
  let missed = false;
  const settled = runs.map((run): ToolRun => {
    if (run.call.name !== output.form.name) return run;
    // An input that failed its check is answered already, with why: the model may try again.
    if (run.status === 'done') {
      missed = true;
      return run;
    }
    if (answer !== null) {
      return {
        ...run,
        status: 'done',
        outcome: {
          status: 'error',
          error: { message: 'not taken: the answer was given by an earlier call of this response' },
        },
      };
    }
    answer = { value: run.call.input };
    return { ...run, status: 'done', outcome: { status: 'success', output: 'Answer received.' } };
  });
  if (answer !== null) return { runs: settled, output: { ...output, answer } };
  if (missed) return { runs: settled, output: { ...output, misses: output.misses + 1 } };
  return { runs: settled, output };
}

/**
 * A response's answer in the API's format: the final text (of a response that calls no tool),
 * parsed as JSON, unless the model call's caller found it does not match the schema
 * (`outputError`). A response that calls tools is not the last one yet.
 */
function settleFormatAnswer(
  runs: ToolRun[],
  output: TurnOutput,
  response: LlmResponse | undefined,
): { runs: ToolRun[]; output: TurnOutput } {
  if (runs.length > 0 || response === undefined) return { runs, output };
  const missed = (why: string) => ({
    runs,
    output: { ...output, misses: output.misses + 1, missed: why },
  });
  if (response.outputError !== undefined) return missed(response.outputError);
  const text = messageText(response.message);
  try {
    return { runs, output: { ...output, answer: { value: JSON.parse(text) as unknown } } };
  } catch {
    return missed('the final text is not JSON');
  }
}
