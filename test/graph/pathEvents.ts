/**
 * The events a generated path is made of, as templates.
 *
 * A path is found in an abstract graph (see `stateKey.ts`) in which two states with different
 * histories can share a key, so an event cannot name a tool call by its concrete id: the id a
 * state was first reached with need not be the id the same key has when a path is replayed.
 * Templates name calls by position instead (`$run0` is the first tool run of the current
 * response, `$new0` the first tool call of the response being streamed) and `concretize` turns
 * them into real events against whatever snapshot the path is being replayed on.
 */
import type { AgentActorName, AgentContext, AgentEvent } from '../../src/index.js';
import { failureEvent, hookActorId, subagentTaskOf } from '../../src/machine/index.js';
import {
  preCompactHookInput,
  promptHookInput,
  stopHookInput,
} from '../../src/machine/turnHookInputs.js';

/**
 * An invoked actor throwing instead of answering (a bug in it). In actor mode the runner makes
 * the actor's double throw, behind the failure boundary every agent puts around its actors; the
 * chart then takes the event that stands for the failure (`failureEvent`), which is what the
 * reference and pure mode are given (a pure-mode caller whose own actor throws reports it so).
 */
export interface ActorCrashEvent {
  type: 'ActorCrash';
  actor: AgentActorName;
  /**
   * For a tool, subagent or tool hook actor: the call it is about (a template such as `$run0`).
   */
  callId?: string;
  /**
   * For a hook on the turn (a `hook` actor with no call): which one, by its actor id — the
   * `userPromptSubmit` hook (`promptHook`), the `stop` hook (`stopHook`) or the `preCompact`
   * hook (`preCompactHook`).
   */
  turnHook?: TurnHookId;
}

/** The actor ids of the hooks on a turn, each invoked by the wait state of its own. */
export type TurnHookId = 'promptHook' | 'stopHook' | 'preCompactHook';

/**
 * The `hook` actor of a hook on the turn throwing: the `userPromptSubmit` hook's (`promptHook`),
 * the `stop` hook's (`stopHook`) or the `preCompact` hook's (`preCompactHook`).
 *
 * @example
 * turnHookCrash('stopHook'); // { type: 'ActorCrash', actor: 'hook', turnHook: 'stopHook' }
 */
export function turnHookCrash(turnHook: TurnHookId): ActorCrashEvent {
  return { type: 'ActorCrash', actor: 'hook', turnHook };
}

/**
 * An invoked actor throwing: `actor`'s, or for a tool or a subagent the one running `callId`.
 *
 * @example
 * actorCrash('tool', runId(0)); // { type: 'ActorCrash', actor: 'tool', callId: '$run0' }
 */
export function actorCrash(actor: AgentActorName, callId?: string): ActorCrashEvent {
  return callId === undefined
    ? { type: 'ActorCrash', actor }
    : { type: 'ActorCrash', actor, callId };
}

/** An event of a generated path: one of the chart's events, or an invoked actor's failure. */
export type PathEvent = AgentEvent | ActorCrashEvent;

/** What a crashing test double throws, so every runner reports the same failure text. */
export const CRASH_MESSAGE = 'the test double crashed';

/** Template for the id of the `index`-th tool run of the current response. */
export const runId = (index: number): string => `$run${index}`;

/**
 * What the API counts for a request whose transcript fills most of a small context window (see
 * `COMPACTING_WINDOW` in `variants.ts`): the next request passes its threshold.
 */
export const FULL_WINDOW_TOKENS = 1500;

/** Template for the id of the `index`-th tool call of the response being streamed. */
export const newCallId = (index: number): string => `$new${index}`;

/** Template for the text of a user message (made unique per path by the runner). */
export const INPUT_TEXT = '$input';

/** The tool-call id `concretize` gives the `index`-th call of the next response. */
export function toolCallIdFor(context: Pick<AgentContext, 'usage'>, index: number): string {
  // The count of completed calls grows with every response, so ids never repeat in a transcript.
  return `toolu_${context.usage.calls + 1}_${index}`;
}

// Templates are shared by every path that offers them: each is turned into JSON once.
const templateJson = new WeakMap<object, string>();

const PLACEHOLDER = /\$run(\d+)|\$new(\d+)|\$input/g;

/**
 * The concrete event for `template` in a state whose context is `context`. `inputNumber` makes
 * each user message of a path unique, so the "nothing lost" rule can find every one of them.
 *
 * @example
 * concretize({ type: 'ToolCompleted', callId: '$run0', outcome }, context, 1);
 * // { type: 'ToolCompleted', callId: 'toolu_1_0', outcome }
 */
export function concretize<TEvent extends PathEvent>(
  template: TEvent,
  context: Pick<AgentContext, 'usage' | 'toolRuns'>,
  inputNumber: number,
): TEvent {
  let json = templateJson.get(template);
  if (json === undefined) templateJson.set(template, (json = JSON.stringify(template)));
  if (!json.includes('$')) return template;
  const concrete = json.replace(
    PLACEHOLDER,
    (whole, run: string | undefined, fresh: string | undefined) => {
      if (run !== undefined) {
        const toolRun = context.toolRuns[Number(run)];
        if (toolRun === undefined) throw new Error(`${whole}: the response has no such tool run`);
        return toolRun.call.id;
      }
      if (fresh !== undefined) return toolCallIdFor(context, Number(fresh));
      return `user message ${inputNumber}`;
    },
  );
  return JSON.parse(concrete) as TEvent;
}

/** Narrows a path event to an invoked actor's failure. */
export function isActorCrash(event: PathEvent): event is ActorCrashEvent {
  return event.type === 'ActorCrash';
}

/**
 * The id of the child actor a crash is about: the call id for a tool or a subagent, the hook's
 * own id for a hook on the turn or on a call, else the actor's name.
 */
export function crashedActorId(event: ActorCrashEvent): string {
  if (event.actor === 'tool' || event.actor === 'subagent') return event.callId ?? '';
  if (event.actor === 'hook') return event.turnHook ?? hookActorId(event.callId ?? '');
  return event.actor;
}

/**
 * A short label for an event, for path descriptions: the type and what tells it apart from
 * its siblings (`LlmCompleted(read_file+edit_file)`, `ToolCompleted($run0 error)`, …).
 */
export function describeEvent(event: PathEvent): string {
  if (isActorCrash(event)) return `crash(${crashedActorId(event)})`;
  switch (event.type) {
    case 'LlmCompleted': {
      const { message, stopReason, toolInputErrors } = event.response;
      const blocks = typeof message.content === 'string' ? [] : message.content;
      const calls = blocks.flatMap((block) =>
        block.type === 'tool_use' && typeof block.name === 'string' ? [block.name] : [],
      );
      const parts = [calls.length > 0 ? calls.join('+') : blocks.length > 0 ? 'text' : 'empty'];
      if (stopReason !== undefined && stopReason !== 'end_turn' && stopReason !== 'tool_use') {
        parts.push(stopReason);
      }
      if (toolInputErrors !== undefined) parts.push('invalid input');
      if ((event.response.usage?.input_tokens ?? 0) >= FULL_WINDOW_TOKENS)
        parts.push('full window');
      return `LlmCompleted(${parts.join(' ')})`;
    }
    case 'LlmError': {
      const { kind, status, retryAfterMs } = event.error;
      const retryAfter = retryAfterMs === undefined ? '' : ` retry-after ${retryAfterMs}`;
      return `LlmError(${kind}${status === undefined ? '' : ` ${status}`}${retryAfter})`;
    }
    case 'ToolCompleted':
      return `ToolCompleted(${event.callId} ${event.outcome.status})`;
    case 'ToolProgress':
      return `ToolProgress(${event.callId})`;
    case 'ToolApproval':
      return `ToolApproval(${event.callId} ${event.decision}${event.remember ? ' remember' : ''})`;
    case 'UserAnswer':
      return `UserAnswer(${event.callId})`;
    case 'PreToolUseDecision':
      return `PreToolUseDecision(${event.callId} ${event.decision ?? (event.input ? 'input' : 'pass')})`;
    case 'PostToolUseResult':
      return `PostToolUseResult(${event.callId}${event.message ? ' message' : ''}${event.context ? ' context' : ''})`;
    case 'SetPermissionMode':
      return `SetPermissionMode(${event.mode})`;
    case 'SetTools':
      return `SetTools(${event.tools.map((tool) => tool.name).join('+')})`;
    case 'LlmToolCallDelta':
      return `LlmToolCallDelta(${event.toolName})`;
    case 'PostToolsHookCompleted':
      if (event.error !== undefined) return 'PostToolsHookCompleted(failed)';
      return `PostToolsHookCompleted(${event.actionTaken ? 'committed' : 'nothing'})`;
    case 'UserPromptSubmitDecision':
      if (event.error !== undefined) return 'UserPromptSubmitDecision(failed)';
      return `UserPromptSubmitDecision(${event.decision ?? (event.context ? 'context' : 'pass')})`;
    case 'StopDecision':
      if (event.error !== undefined) return 'StopDecision(failed)';
      return `StopDecision(${event.decision ?? 'end'})`;
    case 'PreCompactDecision':
      if (event.error !== undefined) return 'PreCompactDecision(failed)';
      return `PreCompactDecision(${event.decision ?? (event.instructions ? 'instructions' : 'pass')})`;
    case 'Compact':
      return event.instructions === undefined ? 'Compact' : 'Compact(instructions)';
    default:
      return event.type;
  }
}

/**
 * The event the chart takes for a concrete path event in a state whose context is `context`: the
 * event itself, or for a crash the event that stands for the actor's failure.
 *
 * @example
 * toChartEvent({ type: 'ActorCrash', actor: 'retryTimer' }, context); // { type: 'RetryTimeoutFired' }
 */
export function toChartEvent(event: PathEvent, context: AgentContext): AgentEvent {
  if (!isActorCrash(event)) return event;
  if (event.actor !== 'tool' && event.actor !== 'hook' && event.actor !== 'subagent') {
    return failureEvent(event.actor, undefined, CRASH_MESSAGE);
  }
  // A hook on the turn crashed with the input its state invoked it with.
  if (event.turnHook === 'promptHook') {
    return failureEvent('hook', promptHookInput(context), CRASH_MESSAGE);
  }
  if (event.turnHook === 'stopHook') {
    return failureEvent('hook', stopHookInput(context), CRASH_MESSAGE);
  }
  if (event.turnHook === 'preCompactHook') {
    return failureEvent('hook', preCompactHookInput(context), CRASH_MESSAGE);
  }
  const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
  if (run === undefined) throw new Error(`${describeEvent(event)}: no such tool call`);
  if (event.actor === 'tool') return failureEvent('tool', { call: run.call }, CRASH_MESSAGE);
  if (event.actor === 'subagent') {
    // A subagent runs only for a valid task: its actor was given the task read from the call.
    const read = subagentTaskOf(run.call.input, context.config.agents);
    if ('problem' in read) throw new Error(`${describeEvent(event)}: not a task call`);
    const spec = context.config.agents[read.task.agent]!;
    const input = { call: run.call, task: read.task, spec, permissionMode: context.permissionMode };
    return failureEvent('subagent', input, CRASH_MESSAGE);
  }
  const input =
    run.status === 'postHook' && run.outcome !== undefined
      ? { hook: 'postToolUse' as const, call: run.call, outcome: run.outcome }
      : { hook: 'preToolUse' as const, call: run.call };
  return failureEvent('hook', input, CRASH_MESSAGE);
}
