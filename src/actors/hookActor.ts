/**
 * The `hook` actor: runs one of the caller's hooks (on a tool call, a prompt, or the response
 * that would end a turn) with a timeout and an `AbortSignal`, and answers with the chart's event
 * for it. A hook that throws, hangs past its timeout or answers with something malformed is a
 * failure in that event (`error`), never thrown: the chart decides what a failure means (a
 * `preToolUse` failure denies the call; the other hooks fail open).
 */
import { type EventObject, fromCallback } from 'xstate';
import {
  AgentStatechartError,
  type AgentEvent,
  type CompactionTrigger,
  checkEvent,
  errorMessage,
  hookFailure,
  HOOK_NAMES,
  hookSwitchesOf,
  type HookInput,
  type HookSwitches,
  type Message,
  messageText,
  type ToolCall,
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

/**
 * What a `userPromptSubmit` hook may answer: `decision: 'block'` drops the prompt before the
 * model sees it (`reason` tells the user why), and `context`, a note the model reads after the
 * prompt. Returning nothing lets the prompt through as it is.
 *
 * @example
 * const answer: UserPromptSubmitAnswer = { decision: 'block', reason: 'prompts must not contain API keys' };
 */
export interface UserPromptSubmitAnswer {
  decision?: 'block';
  reason?: string;
  context?: string;
}

/**
 * What a `stop` hook may answer: `decision: 'continue'` with a `reason`, the instruction the
 * model goes on with (once per turn). Returning nothing lets the turn end.
 *
 * @example
 * const answer: StopAnswer = { decision: 'continue', reason: 'the tests still fail: run them and fix what fails' };
 */
export interface StopAnswer {
  decision?: 'continue';
  reason?: string;
}

/**
 * What a `preCompact` hook may answer: `decision: 'block'` vetoes the compaction (`reason` says
 * why), and `instructions`, what the summary must keep besides what it keeps anyway. Returning
 * nothing lets the compaction go on as it is.
 *
 * @example
 * const answer: PreCompactAnswer = { instructions: 'Keep the list of failing tests and their errors.' };
 */
export interface PreCompactAnswer {
  decision?: 'block';
  reason?: string;
  instructions?: string;
}

/** What a hook is told besides its subject: how to know it was cancelled, and whose it is. */
export interface HookContext {
  /** Aborted when the hook times out, or the turn is interrupted or the agent shuts down. */
  signal: AbortSignal;
  /**
   * The stored session the hook runs for, when the agent runs one: what tells one session from
   * another to hooks shared by many (a worker's).
   */
  sessionId?: string;
}

/** A hook's answer, now or later. */
type Answer<T> = T | undefined | Promise<T | undefined>;

/**
 * The caller's hooks. Each may be async, and runs within `timeoutMs`; a hook that had not
 * answered when the process stopped runs again when the session resumes.
 *
 * - `preToolUse`: before each tool call's permission check (not `ask_user`'s). It may allow, deny
 *   with a reason the model reads, ask for approval, change the input, or add a note. A failure
 *   denies the call.
 * - `postToolUse`: after each call ran, with its outcome. It may add a note, or replace a failed
 *   call's error. A failure leaves the result as it was.
 * - `userPromptSubmit`: before a prompt starts a turn (`text` is its text). It may block it, or
 *   add a note the model reads after it. A failure lets the prompt through.
 * - `stop`: when the model ends its response without calling a tool (`text` is what it said). It
 *   may have the turn go on once, with a reason the model reads. A failure lets the turn end.
 * - `preCompact`: before the transcript is compacted (`trigger`: `auto` when a request would pass
 *   the threshold, `manual` for `agent.compact()`; `summarised`: how many messages the summary
 *   replaces). It may veto the compaction, or add instructions for the summary. A failure lets
 *   it go on.
 *
 * @example
 * const hooks: AgentHooks = {
 *   preToolUse: ({ call }) =>
 *     call.name === 'bash' && String(call.input.command).includes('rm -rf')
 *       ? { decision: 'deny', reason: 'no recursive deletes; remove files one by one' }
 *       : undefined,
 *   userPromptSubmit: ({ text }) =>
 *     /sk-ant-/.test(text) ? { decision: 'block', reason: 'the prompt contains an API key' } : undefined,
 *   stop: async () =>
 *     (await testsPass()) ? undefined : { decision: 'continue', reason: 'the tests fail; fix them' },
 * };
 */
export interface AgentHooks {
  preToolUse?: (
    input: { call: ToolCall & { input: Record<string, unknown> } },
    context: HookContext,
  ) => Answer<PreToolUseAnswer>;
  postToolUse?: (
    input: { call: ToolCall & { input: Record<string, unknown> }; outcome: ToolOutcome },
    context: HookContext,
  ) => Answer<PostToolUseAnswer>;
  userPromptSubmit?: (
    input: { prompt: Message; text: string },
    context: HookContext,
  ) => Answer<UserPromptSubmitAnswer>;
  stop?: (
    input: { response: Message | null; text: string },
    context: HookContext,
  ) => Answer<StopAnswer>;
  preCompact?: (
    input: { trigger: CompactionTrigger; summarised: number; instructions: string[] },
    context: HookContext,
  ) => Answer<PreCompactAnswer>;
}

/** How long a hook may take when nothing else is said. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/**
 * Options of {@link createHookActor}.
 *
 * @example
 * const options: HookActorOptions = { hooks, timeoutMs: 5_000 };
 */
export interface HookActorOptions {
  hooks: AgentHooks;
  /** How long one hook may run. Default {@link DEFAULT_HOOK_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Where the actor registers its work, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
  /** The stored session the hooks run for (`HookContext.sessionId`). */
  sessionId?: string;
}

/**
 * Makes the `hook` actor that runs `hooks`.
 *
 * @example
 * agentMachine.provide({ actors: { hook: createHookActor({ hooks }) } });
 */
export function createHookActor(options: HookActorOptions) {
  return fromCallback<EventObject, HookInput>(({ input, sendBack }) => {
    const controller = new AbortController();
    let cancelled = false;
    const work = runHook(options.hooks, input, {
      signal: controller.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
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
 * nothing. What the `hook` actor does, and what a pure-mode driver does for a
 * `Run…Hook` action (`RunHookAction`).
 *
 * @example
 * const event = await runHook(hooks, { hook: 'preToolUse', call });
 * await session.handleEvent(event);
 */
export async function runHook(
  hooks: AgentHooks,
  input: HookInput,
  options: { timeoutMs?: number; signal?: AbortSignal; sessionId?: string } = {},
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
    const context: HookContext = {
      signal: controller.signal,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    };
    const answer = await Promise.race([callHook(hooks, input, context), aborted]);
    return answerEvent(input, answer);
  } catch (error) {
    return hookFailure(input, errorMessage(error));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/**
 * Which hooks a chart waits for, from the hook functions given; `INVALID_OPTION` for a hook that
 * is not a function, a name that is not a hook, or a timeout that is not a positive number.
 *
 * @example
 * hookSwitches({ stop: () => undefined });
 * // { userPromptSubmit: false, preCompact: false, preToolUse: false, postToolUse: false, stop: true }
 */
export function hookSwitches(
  hooks: AgentHooks | undefined,
  timeoutMs?: number,
): Required<HookSwitches> | undefined {
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
      `hooks must be an object { ${HOOK_NAMES.join(', ')} } of functions, each optional`,
    );
  }
  for (const [name, hook] of Object.entries(hooks)) {
    if (!(HOOK_NAMES as readonly string[]).includes(name)) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `hooks.${name} is not a hook; the hooks are ${HOOK_NAMES.join(', ')}`,
      );
    }
    if (hook !== undefined && typeof hook !== 'function') {
      throw new AgentStatechartError('INVALID_OPTION', `hooks.${name} must be a function`);
    }
  }
  return hookSwitchesOf((name) => typeof hooks[name] === 'function');
}

function callHook(hooks: AgentHooks, input: HookInput, context: HookContext): unknown {
  switch (input.hook) {
    case 'preToolUse':
      return hooks.preToolUse?.({ call: objectCall(input.call) }, context);
    case 'postToolUse':
      return hooks.postToolUse?.({ call: objectCall(input.call), outcome: input.outcome }, context);
    case 'userPromptSubmit':
      return hooks.userPromptSubmit?.(
        { prompt: input.prompt, text: messageText(input.prompt) },
        context,
      );
    case 'stop':
      return hooks.stop?.(
        { response: input.response, text: input.response ? messageText(input.response) : '' },
        context,
      );
    case 'preCompact': {
      const { hook: _hook, ...subject } = input;
      return hooks.preCompact?.(subject, context);
    }
  }
}

function objectCall(call: ToolCall): ToolCall & { input: Record<string, unknown> } {
  return call as ToolCall & { input: Record<string, unknown> };
}

/** Each hook's event, and what its answer may set of it. */
const ANSWERS = {
  preToolUse: { type: 'PreToolUseDecision', fields: ['decision', 'reason', 'input', 'context'] },
  postToolUse: { type: 'PostToolUseResult', fields: ['context', 'message'] },
  userPromptSubmit: { type: 'UserPromptSubmitDecision', fields: ['decision', 'reason', 'context'] },
  stop: { type: 'StopDecision', fields: ['decision', 'reason'] },
  preCompact: { type: 'PreCompactDecision', fields: ['decision', 'reason', 'instructions'] },
} as const;

/**
 * The chart's event for a hook's answer: the fields the hook may set, checked (and copied as
 * plain JSON) by the chart's own event check; an answer it refuses is the hook's failure.
 */
function answerEvent(input: HookInput, answer: unknown): AgentEvent {
  const { type, fields } = ANSWERS[input.hook];
  const event: Record<string, unknown> =
    'call' in input ? { type, callId: input.call.id } : { type };
  if (answer !== undefined && answer !== null) {
    if (typeof answer !== 'object' || Array.isArray(answer)) {
      return hookFailure(input, `it answered ${typeof answer}, not an object or nothing`);
    }
    for (const field of fields) {
      const value = (answer as Record<string, unknown>)[field];
      if (value !== undefined) event[field] = value;
    }
  }
  const checked = checkEvent(event);
  return checked.ok ? checked.event : hookFailure(input, checked.problem.replace(`${type}: `, ''));
}
