/**
 * Shape checks for incoming events. Events come from callers, networks and stored logs; a
 * malformed one must be refused with a sentence that says what is wrong, never crash a guard
 * deep inside the chart or leave something in the context that is not plain JSON. So an event is
 * first copied as plain JSON data (see `copyPlainJson`), then its fields are checked on the copy,
 * and the chart is given the copy. Both steps are cheap for the small events that stream.
 */
import { errorMessage } from './agentStatechartError.js';
import { clip, copyPlainJson, isNonNegativeNumber } from './plainJson.js';
import { PERMISSION_MODES } from './config.js';
import { type AgentEvent, type AgentEventType } from './events.js';
import { LLM_ERROR_KINDS } from './messages.js';
import { outputSpecProblem } from './outputSpec.js';
import { TOOL_NAME_PATTERN } from './toolSpecs.js';

const ERROR_KINDS: ReadonlySet<string> = new Set(LLM_ERROR_KINDS);
const MODES: ReadonlySet<string> = new Set(PERMISSION_MODES);

type Check = (event: Record<string, unknown>) => string | null;

const checks: Record<AgentEventType, Check> = {
  UserInput: (event) =>
    checkMessage(event.message, 'user', 'message') ??
    (event.output === undefined ? null : outputSpecProblem(event.output)),
  LlmStarted: () => null,
  LlmTextDelta: (event) => expectString(event.content, 'content'),
  LlmToolCallDelta: (event) =>
    expectString(event.callId, 'callId') ??
    expectString(event.toolName, 'toolName') ??
    expectString(event.argumentsFragment, 'argumentsFragment'),
  LlmCompleted: (event) => checkResponse(event.response),
  LlmError: (event) => {
    const error = event.error;
    if (!isObject(error)) return 'error must be an object { kind, message }';
    if (typeof error.kind !== 'string' || !ERROR_KINDS.has(error.kind)) {
      return `error.kind must be one of ${LLM_ERROR_KINDS.join(', ')}; got ${describe(error.kind)}`;
    }
    if (error.retryAfterMs !== undefined && !isNonNegativeNumber(error.retryAfterMs)) {
      return 'error.retryAfterMs must be a non-negative number of milliseconds';
    }
    if (error.status !== undefined && typeof error.status !== 'number') {
      return `error.status must be a number when given; got ${describe(error.status)}`;
    }
    return expectString(error.message, 'error.message');
  },
  ToolProgress: (event) => expectString(event.callId, 'callId'),
  ToolCompleted: (event) => {
    const problem = expectString(event.callId, 'callId') ?? usageProblem(event.usage);
    if (problem) return problem;
    const outcome = event.outcome;
    if (!isObject(outcome))
      return "outcome must be { status: 'success', output }, { status: 'success', content } or { status: 'error', error }";
    if (outcome.status === 'success') {
      const { changedPaths, content } = outcome;
      if (
        content !== undefined &&
        !(
          Array.isArray(content) &&
          content.every((block) => isObject(block) && typeof block.type === 'string')
        )
      ) {
        return "outcome.content must be an array of content blocks ({ type: 'text' | 'image' | 'document' | …, … }) when present";
      }
      return changedPaths === undefined ||
        (Array.isArray(changedPaths) && changedPaths.every((path) => typeof path === 'string'))
        ? null
        : 'outcome.changedPaths must be an array of strings when present';
    }
    if (outcome.status === 'error') {
      return isObject(outcome.error) && typeof outcome.error.message === 'string'
        ? null
        : 'outcome.error must be an object with a string message';
    }
    return `outcome.status must be 'success' or 'error'; got ${describe(outcome.status)}`;
  },
  PostToolsHookCompleted: (event) => {
    if (typeof event.actionTaken !== 'boolean') return 'actionTaken must be a boolean';
    return event.error === undefined || typeof event.error === 'string'
      ? null
      : `error must be a string when given; got ${describe(event.error)}`;
  },
  RetryTimeoutFired: () => null,
  ShutdownRequested: () => null,
  Interrupt: () => null,
  ToolApproval: (event) => {
    const problem = expectString(event.callId, 'callId');
    if (problem) return problem;
    if (event.decision !== 'allow' && event.decision !== 'deny') {
      return `decision must be 'allow' or 'deny'; got ${describe(event.decision)}`;
    }
    if (event.reason !== undefined) {
      if (event.decision !== 'deny') return 'reason goes with a deny; an allow takes none';
      const wrong = expectString(event.reason, 'reason');
      if (wrong) return wrong;
    }
    if (event.input !== undefined) {
      if (event.decision !== 'allow') return 'input goes with an allow: a denied call does not run';
      if (!isPlainObject(event.input))
        return `input must be an object; got ${describe(event.input)}`;
    }
    return expectOptionalBoolean(event.remember, 'remember');
  },
  UserAnswer: (event) => {
    const problem = expectString(event.callId, 'callId');
    if (problem) return problem;
    const { answers } = event;
    const isAnswer = (answer: unknown) =>
      typeof answer === 'string' ||
      (Array.isArray(answer) && answer.every((part) => typeof part === 'string'));
    return Array.isArray(answers) && answers.every(isAnswer)
      ? null
      : 'answers must be an array with one answer per question: a string, or an array of strings';
  },
  PreToolUseDecision: (event) => {
    const problem =
      expectString(event.callId, 'callId') ??
      oneOf(event.decision, ['allow', 'deny', 'ask'], 'decision') ??
      optionalString(event.reason, 'reason') ??
      optionalString(event.context, 'context') ??
      optionalString(event.error, 'error');
    if (problem) return problem;
    const { input } = event;
    if (input !== undefined && !isPlainObject(input)) {
      return `input must be an object; got ${describe(input)}`;
    }
    return null;
  },
  PostToolUseResult: (event) =>
    expectString(event.callId, 'callId') ??
    optionalString(event.context, 'context') ??
    optionalString(event.message, 'message') ??
    optionalString(event.error, 'error'),
  UserPromptSubmitDecision: (event) =>
    oneOf(event.decision, ['block'], 'decision') ??
    optionalString(event.reason, 'reason') ??
    optionalString(event.context, 'context') ??
    optionalString(event.error, 'error'),
  StopDecision: (event) => {
    const problem =
      oneOf(event.decision, ['continue'], 'decision') ??
      optionalString(event.reason, 'reason') ??
      optionalString(event.error, 'error');
    if (problem) return problem;
    return event.decision === 'continue' &&
      (typeof event.reason !== 'string' || event.reason.trim() === '')
      ? "a 'continue' decision needs a reason: the model's next instruction"
      : null;
  },
  PreCompactDecision: (event) =>
    oneOf(event.decision, ['block'], 'decision') ??
    optionalString(event.reason, 'reason') ??
    optionalString(event.instructions, 'instructions') ??
    optionalString(event.error, 'error'),
  Compact: (event) => optionalString(event.instructions, 'instructions'),
  ToolGraceExpired: () => null,
  Resume: (event) => {
    const ids = event.startedToolCallIds;
    if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))) {
      return 'startedToolCallIds must be an array of tool call ids when given';
    }
    if (event.retryElapsedMs !== undefined && !isNonNegativeNumber(event.retryElapsedMs)) {
      return 'retryElapsedMs must be a non-negative number of milliseconds when given';
    }
    return null;
  },
  SetPermissionMode: (event) =>
    typeof event.mode === 'string' && MODES.has(event.mode)
      ? null
      : `mode must be one of ${PERMISSION_MODES.join(', ')}; got ${describe(event.mode)}`,
  SetTools: (event) => checkToolSpecs(event.tools),
};

/** A call's usage, when given: counts of tokens, and a cost or `null`. */
function usageProblem(usage: unknown): string | null {
  if (usage === undefined) return null;
  const fields = [
    'input_tokens',
    'output_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ];
  if (!isObject(usage) || !fields.every((field) => isNonNegativeNumber(usage[field]))) {
    return `usage must be { ${fields.join(', ')}, costUsd } with counts of tokens`;
  }
  return usage.costUsd === null || isNonNegativeNumber(usage.costUsd)
    ? null
    : 'usage.costUsd must be a non-negative number of US dollars, or null';
}

/**
 * An event checked at the chart's boundary: a plain-JSON copy of it that the chart can take, or
 * why it is malformed.
 *
 * @example
 * const checked: CheckedEvent = { ok: false, problem: 'LlmTextDelta: content must be a string; got 42' };
 */
export type CheckedEvent = { ok: true; event: AgentEvent } | { ok: false; problem: string };

/**
 * Checks an event from outside and copies it as plain JSON data: the copy is what the chart
 * gets, so nothing the caller still holds (a getter, a proxy, an object changed later) reaches
 * the context. Never throws, whatever it is given.
 *
 * @example
 * const checked = checkEvent({ type: 'SetPermissionMode', mode: 1n });
 * // { ok: false, problem: 'SetPermissionMode: mode is a BigInt (1n)' }
 * if (checked.ok) actor.send(checked.event);
 */
export function checkEvent(event: unknown): CheckedEvent {
  const copied = copyPlainJson(event, 'the event');
  if (!copied.ok) return { ok: false, problem: withType(event, copied.problem) };
  const plain = copied.value;
  if (!isObject(plain) || typeof plain.type !== 'string') {
    return { ok: false, problem: 'an event must be an object with a string `type`' };
  }
  const check = Object.hasOwn(checks, plain.type)
    ? checks[plain.type as AgentEventType]
    : undefined;
  if (check === undefined) {
    return {
      ok: false,
      problem: `unknown event type '${clip(plain.type)}'; expected one of ${Object.keys(checks).join(', ')}`,
    };
  }
  const problem = check(plain);
  if (problem !== null) return { ok: false, problem: `${plain.type}: ${problem}` };
  return { ok: true, event: plain as unknown as AgentEvent };
}

/**
 * Why `event` is not a valid `AgentEvent`, or `null` when it is.
 *
 * @example
 * validateEvent({ type: 'LlmTextDelta', content: 42 });
 * // "LlmTextDelta: content must be a string; got 42"
 * validateEvent({ type: 'Interrupt' }); // null
 */
export function validateEvent(event: unknown): string | null {
  const checked = checkEvent(event);
  return checked.ok ? null : checked.problem;
}

/**
 * `problem` said of the event's type when the type can be read: 'SetPermissionMode: mode is a
 * BigInt (1n)' rather than 'the event.mode is a BigInt (1n)'.
 */
function withType(event: unknown, problem: string): string {
  const type = readType(event);
  const prefix = 'the event.';
  if (type === undefined || !problem.startsWith(prefix)) return problem;
  return `${clip(type)}: ${problem.slice(prefix.length)}`;
}

function readType(event: unknown): string | undefined {
  try {
    if (!isObject(event) || !Object.hasOwn(event, 'type')) return undefined;
    const type = event.type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    // A proxy or a getter that throws: the problem already says so without the type.
    return undefined;
  }
}

/** The problem with a model response, or null. Every field read here is already plain JSON. */
function checkResponse(response: unknown): string | null {
  if (!isObject(response)) return 'response must be an object with a message';
  const problem = checkMessage(response.message, 'assistant', 'response.message');
  if (problem !== null) return problem;
  for (const field of ['stopReason', 'id', 'model'] as const) {
    if (response[field] !== undefined && response[field] !== null) {
      const wrong = expectString(response[field], `response.${field}`);
      if (wrong !== null) return wrong;
    }
  }
  if (response.stopSequence !== undefined && response.stopSequence !== null) {
    const wrong = expectString(response.stopSequence, 'response.stopSequence');
    if (wrong !== null) return wrong;
  }
  if (response.usage !== undefined) {
    const usage = response.usage;
    if (!isObject(usage)) return 'response.usage must be an object { input_tokens, output_tokens }';
    for (const field of ['input_tokens', 'output_tokens'] as const) {
      if (!isNonNegativeNumber(usage[field])) {
        return `response.usage.${field} must be a non-negative number; got ${describe(usage[field])}`;
      }
    }
  }
  if (response.toolInputErrors !== undefined) {
    const errors = response.toolInputErrors;
    if (!isPlainObject(errors)) {
      return 'response.toolInputErrors must be an object of strings by tool_use id';
    }
    for (const [id, reason] of Object.entries(errors)) {
      if (typeof reason !== 'string') {
        return `response.toolInputErrors[${describe(id)}] must be a string; got ${describe(reason)}`;
      }
    }
  }
  if (response.outputError !== undefined) {
    const wrong = expectString(response.outputError, 'response.outputError');
    if (wrong !== null) return wrong;
  }
  if (response.stopDetails !== undefined && response.stopDetails !== null) {
    if (!isObject(response.stopDetails) || typeof response.stopDetails.type !== 'string') {
      return 'response.stopDetails must be an object with a string type, or null';
    }
  }
  if (response.container !== undefined && response.container !== null) {
    if (!isObject(response.container) || typeof response.container.id !== 'string') {
      return 'response.container must be an object with a string id, or null';
    }
  }
  return null;
}

function checkMessage(value: unknown, role: 'user' | 'assistant', name: string): string | null {
  if (!isObject(value)) return `${name} must be an object { role, content }`;
  if (value.role !== role) return `${name}.role must be '${role}'; got ${describe(value.role)}`;
  const content = value.content;
  if (typeof content === 'string') {
    return role === 'user' && content.length === 0 ? `${name}.content must not be empty` : null;
  }
  if (!Array.isArray(content))
    return `${name}.content must be a string or an array of content blocks`;
  if (role === 'user' && content.length === 0) return `${name}.content must not be empty`;
  for (let index = 0; index < content.length; index++) {
    const problem = checkBlock(content[index]);
    if (problem !== null) return `${name}.content[${index}] ${problem}`;
  }
  return null;
}

/**
 * The problem with one content block, or null: the blocks the chart reads or the API checks
 * must have their fields; any other block type is kept as it came.
 */
function checkBlock(block: unknown): string | null {
  if (!isObject(block) || typeof block.type !== 'string') {
    return 'must be a content block with a string type';
  }
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? null : 'is a text block without a string text';
    case 'tool_use':
      if (typeof block.id !== 'string' || typeof block.name !== 'string') {
        return 'is a tool_use block without a string id and name';
      }
      return isPlainObject(block.input) ? null : 'is a tool_use block whose input is not an object';
    case 'tool_result':
      return checkToolResult(block);
    case 'thinking':
      return typeof block.thinking === 'string' && typeof block.signature === 'string'
        ? null
        : 'is a thinking block without a string thinking and signature';
    case 'redacted_thinking':
      return typeof block.data === 'string' ? null : 'is a redacted_thinking block without data';
    default:
      return null;
  }
}

function checkToolResult(block: Record<string, unknown>): string | null {
  if (typeof block.tool_use_id !== 'string') {
    return 'is a tool_result block without a string tool_use_id';
  }
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
    return 'is a tool_result block whose is_error is not a boolean';
  }
  const content = block.content;
  if (content === undefined || typeof content === 'string') return null;
  if (!Array.isArray(content)) {
    return 'is a tool_result block whose content is not a string or an array of blocks';
  }
  for (const inner of content) {
    const problem = checkBlock(inner);
    if (problem !== null)
      return `is a tool_result block whose content holds a block that ${problem}`;
  }
  return null;
}

/**
 * The problem with the tools of a `SetTools`, or null: each spec a plain object whose name the
 * Messages API takes, no name twice, and every field the chart or the request reads of the
 * right kind, since a spec goes into every request that follows.
 */
function checkToolSpecs(tools: unknown): string | null {
  if (!Array.isArray(tools)) {
    return `tools must be an array of tool specs ({ name, … }); got ${describe(tools)}`;
  }
  const names = new Set<string>();
  for (let index = 0; index < tools.length; index++) {
    const spec: unknown = tools[index];
    const field = `tools[${index}]`;
    if (!isPlainObject(spec)) {
      return `${field} must be a tool spec such as { name: 'read_file' }; got ${describe(spec)}`;
    }
    const { name } = spec;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      return `${field}.name must be a tool name (1 to 64 letters, digits, _ or -); got ${describe(name)}`;
    }
    if (names.has(name)) {
      return `${field}.name '${clip(name)}' is given twice; tool names must be unique`;
    }
    names.add(name);
    const problem = checkToolSpecFields(spec, field);
    if (problem !== null) return problem;
  }
  return null;
}

/** The problem with the fields of a tool spec besides its name, or null. */
function checkToolSpecFields(spec: Record<string, unknown>, field: string): string | null {
  for (const flag of ['mutating', 'edit', 'alwaysAsk', 'idempotent'] as const) {
    const problem = expectOptionalBoolean(spec[flag], `${field}.${flag}`);
    if (problem !== null) return problem;
  }
  if (spec.description !== undefined && typeof spec.description !== 'string') {
    return `${field}.description must be a string when given; got ${describe(spec.description)}`;
  }
  const schema = spec.inputSchema;
  if (schema !== undefined && !(isPlainObject(schema) && schema.type === 'object')) {
    return `${field}.inputSchema must be the JSON Schema of an object ({ type: 'object', … }) when given; got ${describe(schema)}`;
  }
  return null;
}

function expectOptionalBoolean(value: unknown, name: string): string | null {
  return value === undefined || typeof value === 'boolean'
    ? null
    : `${name} must be a boolean when given; got ${describe(value)}`;
}

function expectString(value: unknown, name: string): string | null {
  return typeof value === 'string' ? null : `${name} must be a string; got ${describe(value)}`;
}

function optionalString(value: unknown, name: string): string | null {
  return value === undefined || typeof value === 'string'
    ? null
    : `${name} must be a string when given; got ${describe(value)}`;
}

function oneOf(value: unknown, allowed: readonly string[], name: string): string | null {
  if (value === undefined || allowed.includes(value as string)) return null;
  const choices = allowed.map((choice) => `'${choice}'`);
  const listed =
    choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  return `${name} must be ${listed} when given; got ${describe(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** An object that is not an array (a checked event holds no other kind of object). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}

/** A value of a checked (plain JSON) event as an error message shows it, cut to a short length. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  return clip(typeof value === 'string' ? JSON.stringify(value) : errorMessage(value));
}
