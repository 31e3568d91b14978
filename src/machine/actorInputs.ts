/**
 * What the chart hands to each invoked actor. Implementations of `llm`, `tool`, `postToolsHook`
 * and `retryTimer` receive these as `input` and answer with the chart's own events.
 */
import type { AgentAction, CompletedToolInfo } from './actions.js';
import type { CompactionTrigger } from './compaction.js';
import type { AgentActorName } from './actorNames.js';
import type { AgentEvent } from './events.js';
import type { SubagentActorInput } from './subagents.js';
import { errorOutcome } from './toolRuns.js';
import type { LlmRequest, Message, ToolCall, ToolOutcome } from './messages.js';

/**
 * Input of the `llm` actor: the request to stream. The actor answers with `LlmTextDelta`,
 * `LlmToolCallDelta`, then `LlmCompleted` or `LlmError`.
 *
 * @example
 * const input: LlmActorInput = { request: buildRequest(core.context) };
 */
export interface LlmActorInput {
  request: LlmRequest;
}

/**
 * Input of one `tool` actor (one per call, with the call id as actor id). It answers with
 * `ToolProgress` (optional) and one `ToolCompleted`. On an interrupt the chart sends it
 * `{ type: 'AbortTool' }` instead of stopping it: it aborts the call and still reports how the
 * call ended (completed anyway, or stopped), so the model is told the truth.
 *
 * @example
 * const input: ToolActorInput = { call: { id: 't1', name: 'read_file', input: { path: 'a.txt' } } };
 */
export interface ToolActorInput {
  call: ToolCall;
}

/**
 * Input of the `postToolsHook` actor: every call of the response in call order with whether it
 * succeeded, the calls themselves, and the paths the successful calls reported changing (what an
 * auto-commit may commit). It answers with one `PostToolsHookCompleted`.
 *
 * @example
 * const input: PostToolsHookInput = {
 *   completedTools: [{ name: 'edit_file', succeeded: true }],
 *   calls,
 *   changedPaths: ['src/a.ts'],
 * };
 */
export interface PostToolsHookInput {
  completedTools: CompletedToolInfo[];
  calls: ToolCall[];
  /** From the successful outcomes' `changedPaths`, in call order, without repeats. */
  changedPaths: string[];
}

/**
 * Input of the `retryTimer` actor: how long to wait before sending `RetryTimeoutFired`. The delay
 * travels in the input, not in an `after` transition, so a restored snapshot restarts the timer
 * (XState does not persist pending `after` timers).
 *
 * @example
 * const input: RetryTimerInput = { delayMs: 400, attempt: 2 };
 */
export interface RetryTimerInput {
  delayMs: number;
  attempt: number;
}

/**
 * Input of the `toolGraceTimer` actor: after an interrupt, how long to wait for aborted tool calls
 * to report before sending `ToolGraceExpired`.
 *
 * @example
 * const input: ToolGraceTimerInput = { delayMs: 5000 };
 */
export interface ToolGraceTimerInput {
  delayMs: number;
}

/**
 * Input of one `hook` actor: the `preToolUse` hook on a call before the permission check,
 * answered with one `PreToolUseDecision`, or the `postToolUse` hook on a call that ran, with its
 * outcome, answered with one `PostToolUseResult` (one actor per call, with `hookActorId(call.id)`
 * as actor id); the `userPromptSubmit` hook on a prompt, answered with one
 * `UserPromptSubmitDecision`; the `stop` hook on the response that would end the turn (`null`
 * when it had no content), answered with one `StopDecision`.
 *
 * @example
 * const input: HookInput = { hook: 'preToolUse', call: { id: 't1', name: 'bash', input: { command: 'ls' } } };
 */
export type HookInput = ToolHookInput | TurnHookInput;

/**
 * Input of a `hook` actor for a tool call's hook.
 *
 * @example
 * const input: ToolHookInput = { hook: 'postToolUse', call, outcome };
 */
export type ToolHookInput =
  | { hook: 'preToolUse'; call: ToolCall }
  | { hook: 'postToolUse'; call: ToolCall; outcome: ToolOutcome };

/**
 * Input of a `hook` actor for a hook on the turn: its prompt, or the response that would end it.
 *
 * @example
 * const input: TurnHookInput = { hook: 'userPromptSubmit', prompt: { role: 'user', content: 'hi' } };
 */
export type TurnHookInput =
  | { hook: 'userPromptSubmit'; prompt: Message }
  | { hook: 'stop'; response: Message | null }
  | PreCompactHookInput;

/**
 * Input of a `hook` actor for the `preCompact` hook: why the compaction runs, how many messages
 * its summary would replace, and the instructions it has so far.
 *
 * @example
 * const input: PreCompactHookInput = { hook: 'preCompact', trigger: 'auto', summarised: 212, instructions: [] };
 */
export interface PreCompactHookInput {
  hook: 'preCompact';
  trigger: CompactionTrigger;
  summarised: number;
  instructions: string[];
}

/**
 * A side effect the chart's actors are about to start: a model call, a tool call (with whether
 * it may change the workspace), the post-tools hook, or a retry backoff (a durable wait). A
 * durable session records it before the effect starts, so a restart knows what may have happened
 * (and how much of a backoff was already waited).
 *
 * @example
 * const start: EffectStart = { effect: 'tool', callId: 'toolu_1', name: 'write_file', mutating: true };
 */
export type EffectStart =
  | { effect: 'llm' }
  | { effect: 'tool'; callId: string; name: string; mutating: boolean }
  | { effect: 'hook' }
  | { effect: 'retry'; delayMs: number };

/**
 * Called by an actor before it starts its side effect; the effect starts once the promise
 * resolves, and does not start if it rejects (the actor then answers with an error instead).
 *
 * @example
 * const beforeStart: BeforeEffect = (start) => session.started(start);
 */
export type BeforeEffect = (start: EffectStart) => Promise<void>;

/**
 * The chart's event that stands for an actor's failure, given the input the actor was started
 * with: what the chart is told when an actor throws instead of answering (a bug in that actor).
 * A model call fails as `unknown` (retried while attempts are left), a tool call fails with the
 * reason (the model reads it), the hook is skipped (hooks fail open), a timer fires.
 *
 * @example
 * failureEvent('tool', { call }, 'boom');
 * // { type: 'ToolCompleted', callId: call.id, outcome: { status: 'error', error: { message: "tool 'bash' failed: boom" } } }
 */
export function failureEvent(actor: AgentActorName, input: unknown, reason: string): AgentEvent {
  switch (actor) {
    case 'llm':
      return {
        type: 'LlmError',
        error: { kind: 'unknown', message: `the llm actor failed: ${reason}` },
      };
    case 'tool': {
      const { call } = input as ToolActorInput;
      return {
        type: 'ToolCompleted',
        callId: call.id,
        outcome: errorOutcome(`tool '${call.name}' failed: ${reason}`),
      };
    }
    case 'postToolsHook':
      return { type: 'PostToolsHookCompleted', actionTaken: false, error: reason };
    case 'retryTimer':
      return { type: 'RetryTimeoutFired' };
    case 'toolGraceTimer':
      return { type: 'ToolGraceExpired' };
    case 'hook':
      return hookFailure(input as HookInput, reason);
    case 'subagent': {
      const { call, task } = input as SubagentActorInput;
      return {
        type: 'ToolCompleted',
        callId: call.id,
        outcome: errorOutcome(`subagent '${task.agent}' failed: ${reason}`),
      };
    }
  }
}

/** The actions that ask for a hook to run. */
export type RunHookAction = Extract<
  AgentAction,
  {
    type:
      | 'RunPreToolUseHook'
      | 'RunPostToolUseHook'
      | 'RunUserPromptSubmitHook'
      | 'RunPreCompactHook'
      | 'RunStopHook';
  }
>;

/**
 * What a hook runs on, from the action that asks for it: what a pure-mode driver hands to
 * `runHook`.
 *
 * @example
 * if (action.type === 'RunStopHook') await core.handleEvent(await runHook(hooks, hookInputOf(action)));
 */
export function hookInputOf(action: RunHookAction): HookInput {
  switch (action.type) {
    case 'RunPreToolUseHook':
      return { hook: 'preToolUse', call: action.call };
    case 'RunPostToolUseHook':
      return { hook: 'postToolUse', call: action.call, outcome: action.outcome };
    case 'RunUserPromptSubmitHook':
      return { hook: 'userPromptSubmit', prompt: action.prompt };
    case 'RunStopHook':
      return { hook: 'stop', response: action.response };
    case 'RunPreCompactHook': {
      const { type: _type, ...input } = action;
      return { hook: 'preCompact', ...input };
    }
  }
}

/**
 * The action that asks for a hook to run on `input`: what the chart emits when it starts the
 * `hook` actor, the inverse of {@link hookInputOf}.
 *
 * @example
 * runHookAction({ hook: 'stop', response: null }); // { type: 'RunStopHook', response: null }
 */
export function runHookAction(input: HookInput): RunHookAction {
  switch (input.hook) {
    case 'preToolUse':
      return { type: 'RunPreToolUseHook', call: input.call };
    case 'postToolUse':
      return { type: 'RunPostToolUseHook', call: input.call, outcome: input.outcome };
    case 'userPromptSubmit':
      return { type: 'RunUserPromptSubmitHook', prompt: input.prompt };
    case 'stop':
      return { type: 'RunStopHook', response: input.response };
    case 'preCompact': {
      const { hook: _hook, ...rest } = input;
      return { type: 'RunPreCompactHook', ...rest };
    }
  }
}

/**
 * The chart's answer for a hook that failed (threw, hung past its timeout or answered something
 * malformed): the event its hook answers with, carrying `error`.
 *
 * @example
 * hookFailure({ hook: 'stop', response: null }, 'it threw: boom');
 * // { type: 'StopDecision', error: 'the stop hook failed: it threw: boom' }
 */
export function hookFailure(input: HookInput, reason: string): AgentEvent {
  const on = 'call' in input ? ` on ${input.call.name}` : '';
  const error = `the ${input.hook} hook failed${on}: ${reason}`;
  switch (input.hook) {
    case 'preToolUse':
      return { type: 'PreToolUseDecision', callId: input.call.id, error };
    case 'postToolUse':
      return { type: 'PostToolUseResult', callId: input.call.id, error };
    case 'userPromptSubmit':
      return { type: 'UserPromptSubmitDecision', error };
    case 'stop':
      return { type: 'StopDecision', error };
    case 'preCompact':
      return { type: 'PreCompactDecision', error };
  }
}
