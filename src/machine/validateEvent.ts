/**
 * Shape checks for incoming events. Events come from callers, networks and stored logs; a
 * malformed one must be refused with a sentence that says what is wrong, not crash a guard deep
 * inside the chart. The checks are a few `typeof`s, cheap enough for every streaming delta.
 */
import { errorMessage } from './agentStatechartError.js';
import {
  type AgentEvent,
  type AgentEventType,
  LLM_ERROR_KINDS,
  PERMISSION_MODES,
} from './types.js';

const ERROR_KINDS: ReadonlySet<string> = new Set(LLM_ERROR_KINDS);
const MODES: ReadonlySet<string> = new Set(PERMISSION_MODES);

type Check = (event: Record<string, unknown>) => string | null;

const checks: Record<AgentEventType, Check> = {
  UserInput: (event) => checkMessage(event.message, 'user', 'message'),
  LlmTextDelta: (event) => expectString(event.content, 'content'),
  LlmToolCallDelta: (event) =>
    expectString(event.callId, 'callId') ??
    expectString(event.toolName, 'toolName') ??
    expectString(event.argumentsFragment, 'argumentsFragment'),
  LlmCompleted: (event) => {
    if (!isObject(event.response)) return 'response must be an object with a message';
    return checkMessage(event.response.message, 'assistant', 'response.message');
  },
  LlmError: (event) => {
    const error = event.error;
    if (!isObject(error)) return 'error must be an object { kind, message }';
    if (typeof error.kind !== 'string' || !ERROR_KINDS.has(error.kind)) {
      return `error.kind must be one of ${LLM_ERROR_KINDS.join(', ')}; got ${describe(error.kind)}`;
    }
    if (error.retryAfterMs !== undefined && !isNonNegativeNumber(error.retryAfterMs)) {
      return 'error.retryAfterMs must be a non-negative number of milliseconds';
    }
    return expectString(error.message, 'error.message');
  },
  ToolProgress: (event) => expectString(event.callId, 'callId'),
  ToolCompleted: (event) => {
    const problem = expectString(event.callId, 'callId');
    if (problem) return problem;
    const outcome = event.outcome;
    if (!isObject(outcome))
      return "outcome must be { status: 'success', output } or { status: 'error', error }";
    if (outcome.status === 'success') {
      const { changedPaths } = outcome;
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
  PostToolsHookCompleted: (event) =>
    typeof event.actionTaken === 'boolean' ? null : 'actionTaken must be a boolean',
  RetryTimeoutFired: () => null,
  ShutdownRequested: () => null,
  Interrupt: () => null,
  ToolApproval: (event) => {
    const problem = expectString(event.callId, 'callId');
    if (problem) return problem;
    if (event.decision !== 'allow' && event.decision !== 'deny') {
      return `decision must be 'allow' or 'deny'; got ${describe(event.decision)}`;
    }
    return expectOptionalBoolean(event.remember, 'remember');
  },
  ToolGraceExpired: () => null,
  Resume: (event) => {
    const ids = event.startedToolCallIds;
    if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))) {
      return 'startedToolCallIds must be an array of tool call ids when given';
    }
    if (event.retryDelayMs !== undefined && !isNonNegativeNumber(event.retryDelayMs)) {
      return 'retryDelayMs must be a non-negative number of milliseconds when given';
    }
    return null;
  },
  SetPermissionMode: (event) =>
    typeof event.mode === 'string' && MODES.has(event.mode)
      ? null
      : `mode must be one of ${PERMISSION_MODES.join(', ')}; got ${describe(event.mode)}`,
};

/**
 * Why `event` is not a valid `AgentEvent`, or `null` when it is.
 *
 * @example
 * validateEvent({ type: 'LlmTextDelta', content: 42 });
 * // "LlmTextDelta: content must be a string; got 42"
 * validateEvent({ type: 'Interrupt' }); // null
 */
export function validateEvent(event: unknown): string | null {
  if (!isObject(event) || typeof event.type !== 'string') {
    return 'an event must be an object with a string `type`';
  }
  const check = Object.hasOwn(checks, event.type)
    ? checks[event.type as AgentEventType]
    : undefined;
  if (check === undefined) {
    return `unknown event type '${event.type}'; expected one of ${Object.keys(checks).join(', ')}`;
  }
  const problem = check(event);
  return problem === null ? null : `${event.type}: ${problem}`;
}

/**
 * Narrows an unknown value to an `AgentEvent` after `validateEvent` found nothing wrong.
 *
 * @example
 * if (isAgentEvent(value)) core.handleEvent(value);
 */
export function isAgentEvent(event: unknown): event is AgentEvent {
  return validateEvent(event) === null;
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
    const block: unknown = content[index];
    if (!isObject(block) || typeof block.type !== 'string') {
      return `${name}.content[${index}] must be a content block with a string type`;
    }
    if (
      block.type === 'tool_use' &&
      (typeof block.id !== 'string' || typeof block.name !== 'string')
    ) {
      return `${name}.content[${index}] is a tool_use block without a string id and name`;
    }
    if (block.type === 'tool_use' && !isObject(block.input)) {
      return `${name}.content[${index}] is a tool_use block whose input is not an object`;
    }
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isNonNegativeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A value as an error message shows it; never throws (a BigInt, a cycle, a throwing getter). */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  return typeof value === 'string' ? JSON.stringify(value) : errorMessage(value);
}
