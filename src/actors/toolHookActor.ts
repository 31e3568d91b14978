/**
 * The `toolHook` actor: runs the caller's `preToolUse` or `postToolUse` function on one call,
 * with a timeout and an `AbortSignal`, and answers with the chart's event for it. A hook that
 * throws, hangs past its timeout or answers with something malformed is a failure in that event
 * (`error`), never thrown: the chart decides what a failure means (a `preToolUse` failure denies
 * the call; a `postToolUse` failure leaves the result as it was).
 */
import { type EventObject, fromCallback } from 'xstate';
import {
  AgentStatechartError,
  type AgentEvent,
  checkEvent,
  errorMessage,
  type ToolCall,
  type ToolHookInput,
  type ToolHookSwitches,
  type ToolOutcome,
} from '../machine/index.js';
import type { InFlightWork } from './inFlightWork.js';

/**
 * What a `preToolUse` hook may answer: a decision (`allow`, `deny` with a `reason` the model
 * reads, `ask` for a person's approval; none: the permissions decide), an `input` to run the
 * call with instead of the model's, and `context`, a note the model reads with the result.
 * Returning nothing (`undefined`) decides nothing.
 *
 * @example
 * const answer: PreToolUseAnswer = { decision: 'deny', reason: 'migrations are generated; edit the schema' };
 */
export interface PreToolUseAnswer {
  decision?: 'allow' | 'deny' | 'ask';
  reason?: string;
  input?: Record<string, unknown>;
  context?: string;
}

/**
 * What a `postToolUse` hook may answer: `context`, a note the model reads after the result, and
 * `message`, for a call that failed, the error the model reads instead of the tool's own.
 *
 * @example
 * const answer: PostToolUseAnswer = { context: 'prettier reformatted the file' };
 */
export interface PostToolUseAnswer {
  context?: string;
  message?: string;
}

/** What a hook is told besides its call: how to know it was cancelled, and the current mode. */
export interface ToolHookContext {
  /** Aborted when the hook times out, or the turn is interrupted or the agent shuts down. */
  signal: AbortSignal;
}

/**
 * The caller's tool hooks. Each may be async; each runs once per call (again after a restart if
 * it had not answered), within `timeoutMs`.
 *
 * @example
 * const hooks: ToolHooks = {
 *   preToolUse: ({ call }) =>
 *     call.name === 'bash' && String(call.input.command).includes('rm -rf')
 *       ? { decision: 'deny', reason: 'no recursive deletes; remove files one by one' }
 *       : undefined,
 *   postToolUse: ({ call, outcome }) =>
 *     call.name === 'edit_file' && outcome.status === 'success' ? { context: 'remember to run the tests' } : undefined,
 * };
 */
export interface ToolHooks {
  preToolUse?: (
    input: { call: ToolCall & { input: Record<string, unknown> } },
    context: ToolHookContext,
  ) => PreToolUseAnswer | undefined | Promise<PreToolUseAnswer | undefined>;
  postToolUse?: (
    input: { call: ToolCall & { input: Record<string, unknown> }; outcome: ToolOutcome },
    context: ToolHookContext,
  ) => PostToolUseAnswer | undefined | Promise<PostToolUseAnswer | undefined>;
}

/** How long a hook may take when nothing else is said. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/**
 * Options of {@link createToolHookActor}.
 *
 * @example
 * const options: ToolHookActorOptions = { hooks, timeoutMs: 5_000 };
 */
export interface ToolHookActorOptions {
  hooks: ToolHooks;
  /** How long one hook may run. Default {@link DEFAULT_HOOK_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Where the actor registers its work, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
}

/**
 * Makes the `toolHook` actor that runs `hooks`.
 *
 * @example
 * agentMachine.provide({ actors: { toolHook: createToolHookActor({ hooks }) } });
 */
export function createToolHookActor(options: ToolHookActorOptions) {
  return fromCallback<EventObject, ToolHookInput>(({ input, sendBack }) => {
    const controller = new AbortController();
    let cancelled = false;
    const work = runToolHook(options.hooks, input, {
      signal: controller.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    }).then((event) => {
      if (!cancelled) sendBack(event);
    });
    options.inFlight?.track(work);
    return () => {
      cancelled = true;
      controller.abort(
        new AgentStatechartError('CANCELLED', `the ${input.hook} hook was cancelled`),
      );
    };
  });
}

/**
 * Runs the hook `input` names and answers the chart's event for it: the hook's answer, checked,
 * or a failure (`error`) when it threw, answered something malformed or took longer than
 * `timeoutMs` (its signal is then aborted). Never rejects. A hook that is not given answers
 * nothing. What the `toolHook` actor does, and what a pure-mode driver does for a
 * `RunPreToolUseHook` or `RunPostToolUseHook` action.
 *
 * @example
 * const event = await runToolHook(hooks, { hook: 'preToolUse', call });
 * await session.handleEvent(event);
 */
export async function runToolHook(
  hooks: ToolHooks,
  input: ToolHookInput,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<AgentEvent> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new AgentStatechartError('TIMED_OUT', `the ${input.hook} hook took over ${timeoutMs} ms`),
      ),
    timeoutMs,
  );
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error));
  });
  try {
    const answer = await Promise.race([runHook(hooks, input, controller.signal), aborted]);
    return answerEvent(input, answer);
  } catch (error) {
    return failureOf(input, errorMessage(error));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/**
 * Which tool hooks a chart waits for, from the hook functions given; `INVALID_OPTION` for a hook
 * that is not a function, a name that is not a tool hook, or a timeout that is not a positive
 * number.
 *
 * @example
 * toolHookSwitches({ preToolUse: () => undefined }); // { preToolUse: true, postToolUse: false }
 */
export function toolHookSwitches(
  hooks: ToolHooks | undefined,
  timeoutMs?: number,
): ToolHookSwitches | undefined {
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `hookTimeoutMs must be a positive number of milliseconds; got ${String(timeoutMs)}`,
    );
  }
  if (hooks === undefined) return undefined;
  if (typeof hooks !== 'object' || hooks === null) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'hooks must be an object { preToolUse?, postToolUse? } of functions',
    );
  }
  for (const [name, hook] of Object.entries(hooks)) {
    if (name !== 'preToolUse' && name !== 'postToolUse') {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `hooks.${name} is not a hook; the tool hooks are preToolUse and postToolUse`,
      );
    }
    if (hook !== undefined && typeof hook !== 'function') {
      throw new AgentStatechartError('INVALID_OPTION', `hooks.${name} must be a function`);
    }
  }
  return {
    preToolUse: typeof hooks.preToolUse === 'function',
    postToolUse: typeof hooks.postToolUse === 'function',
  };
}

async function runHook(
  hooks: ToolHooks,
  input: ToolHookInput,
  signal: AbortSignal,
): Promise<unknown> {
  const call = input.call as ToolCall & { input: Record<string, unknown> };
  if (input.hook === 'preToolUse') return hooks.preToolUse?.({ call }, { signal });
  return hooks.postToolUse?.({ call, outcome: input.outcome }, { signal });
}

/** What each hook's answer may set of the chart's event. */
const ANSWER_FIELDS = {
  preToolUse: ['decision', 'reason', 'input', 'context'],
  postToolUse: ['context', 'message'],
} as const;

/**
 * The chart's event for a hook's answer: the fields the hook may set, checked (and copied as
 * plain JSON) by the chart's own event check; an answer it refuses is the hook's failure.
 */
function answerEvent(input: ToolHookInput, answer: unknown): AgentEvent {
  const type = input.hook === 'preToolUse' ? 'PreToolUseDecision' : 'PostToolUseResult';
  const event: Record<string, unknown> = { type, callId: input.call.id };
  if (answer !== undefined && answer !== null) {
    if (typeof answer !== 'object' || Array.isArray(answer)) {
      return failureOf(input, `it answered ${typeof answer}, not an object or nothing`);
    }
    for (const field of ANSWER_FIELDS[input.hook]) {
      const value = (answer as Record<string, unknown>)[field];
      if (value !== undefined) event[field] = value;
    }
  }
  const checked = checkEvent(event);
  return checked.ok ? checked.event : failureOf(input, checked.problem.replace(`${type}: `, ''));
}

function failureOf(input: ToolHookInput, reason: string): AgentEvent {
  const error = `the ${input.hook} hook failed on ${input.call.name}: ${reason}`;
  return input.hook === 'preToolUse'
    ? { type: 'PreToolUseDecision', callId: input.call.id, error }
    : { type: 'PostToolUseResult', callId: input.call.id, error };
}
