/**
 * The events offered in each state, with payloads, for the graph walk. This is where the walk
 * learns what the outside world can do: the model starts an attempt, streams, answers with text
 * or with read-only, mutating or mixed tool calls, refuses, runs out of tokens or fails
 * (retryable with and without `Retry-After`, non-retryable); tools succeed, fail, report
 * progress or crash, and after an interrupt report how they really ended; the hook commits,
 * does nothing, fails or crashes; the hooks on a turn block a prompt, let it through (with a note
 * or without), have a turn go on or end it, fail or crash; the `preCompact` hook lets a
 * compaction go on (with instructions or without), vetoes it, fails or crashes, and the summary
 * call answers, answers with nothing, streams, fails or crashes; a compaction is asked for
 * between turns; a subagent answers (with what it used), fails or crashes; timers fire or crash; people approve, deny and remember,
 * change the permission mode, type while a turn runs, interrupt and shut down; the tool list is
 * sent again; the agent is resumed after a restart with work in flight.
 *
 * Only events the state accepts are offered (every path step is asserted to be accepted, but
 * what a compaction's summary call streams, which the chart drops by design), and
 * events that would grow the state without bound (a second queued input, a mode change that is
 * already in force) are left out so the abstract graph stays finite.
 */
import type {
  AgentContext,
  AgentEvent,
  AgentStateValue,
  PermissionMode,
  ToolOutcome,
} from '../../src/index.js';
import { isSubagentCall } from '../../src/machine/index.js';
import { failures, replies } from './modelReplies.js';
import { placeOf } from './stateKey.js';
import {
  type ActorCrashEvent,
  INPUT_TEXT,
  newCallId,
  type PathEvent,
  runId,
  turnHookCrash,
} from './pathEvents.js';
import type { GraphVariant } from './variants.js';

/** What the walk needs to know about a state: where the chart is and its context. */
export interface WalkState {
  value: AgentStateValue;
  context: AgentContext;
}

const userInput: AgentEvent = { type: 'UserInput', message: { role: 'user', content: INPUT_TEXT } };
const interrupt: AgentEvent = { type: 'Interrupt' };
const shutdown: AgentEvent = { type: 'ShutdownRequested' };
/** The agent restored after a restart: what was in flight starts again. */
const resume: AgentEvent = { type: 'Resume' };

const toolSucceeded: ToolOutcome = { status: 'success', output: 'done' };
const toolFailed: ToolOutcome = { status: 'error', error: { message: 'no such file: notes.txt' } };

/** A subagent's final answer, and what its own model calls used (added to the parent's usage). */
const reviewed: ToolOutcome = { status: 'success', output: 'notes.txt: one typo, line 3.' };
const subagentFailed: ToolOutcome = {
  status: 'error',
  error: { message: "subagent 'reviewer' gave up: rate limited" },
};
const subagentUsage = {
  input_tokens: 120,
  output_tokens: 30,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  costUsd: 0.0008,
};

const MODES_WHILE_WAITING_FOR_APPROVAL: readonly PermissionMode[] = [
  'acceptEdits',
  'bypassPermissions',
  'plan',
];

/**
 * The events offered in `state`. The order is the order the graph tries them, so the shortest
 * paths prefer the plainest events.
 *
 * @example
 * eventsByState({ value: 'Error', context }, openVariant);
 * // [RetryTimeoutFired, Resume, crash(retryTimer), Interrupt, UserInput, ShutdownRequested, SetTools]
 */
export function eventsByState(state: WalkState, variant: GraphVariant): PathEvent[] {
  const events = chartEvents(state, variant);
  // Taken in every state but the final one (a root-level transition).
  if (variant.everyOutcome && events.length > 0) events.push(toolsAgain(variant));
  return events;
}

/**
 * The configured tools, listed again (an MCP server that reconnected): the walk's key leaves
 * the tools out, so a list that changed them would give one key two behaviours, and a stored
 * agent comes back with the configured tools, which the end of every path checks.
 */
function toolsAgain(variant: GraphVariant): AgentEvent {
  return { type: 'SetTools', tools: variant.config.tools ?? [] };
}

function chartEvents(state: WalkState, variant: GraphVariant): PathEvent[] {
  const { context } = state;
  const permissionsOn = variant.config.permissions !== undefined;
  // One queued input is enough to show it is delivered; more would make the graph infinite.
  const busy = (queueRoom: number): PathEvent[] => {
    if (variant.busyEventsOnlyWhenFresh && !isFresh(context, variant)) return [];
    const events: PathEvent[] = [interrupt];
    if (context.queue.length < queueRoom) events.push(userInput);
    return events.concat(shutdown);
  };
  const whileBusy = busy(1);

  switch (placeOf(state.value)) {
    case 'WaitingForUserInput.CheckingPrompt': {
      // The prompt held at the head of the queue waits for the userPromptSubmit hook: it goes
      // on (as it is, or with the hook's note), is blocked, or the hook fails (it answers so, or
      // its actor crashes) and it goes on unchecked. One input may queue behind it.
      const events: PathEvent[] = [
        { type: 'UserPromptSubmitDecision' },
        { type: 'UserPromptSubmitDecision', context: 'branch: main, 2 files changed' },
        { type: 'UserPromptSubmitDecision', decision: 'block', reason: 'it names a secret' },
        {
          type: 'UserPromptSubmitDecision',
          error: 'the userPromptSubmit hook failed: it exited with 2',
        },
        turnHookCrash('promptHook'),
        resume,
      ];
      return events.concat(busy(2));
    }
    case 'ProcessingLlmResponse.CheckingStop': {
      // A response that would end the turn waits for the stop hook: it ends the turn, has it go
      // on (once a turn), or fails (it answers so, or its actor crashes) and the turn ends.
      const events: PathEvent[] = [
        { type: 'StopDecision' },
        { type: 'StopDecision', decision: 'continue', reason: 'the tests still fail: fix them' },
        { type: 'StopDecision', error: 'the stop hook failed: it exited with 1' },
        turnHookCrash('stopHook'),
        resume,
      ];
      return events.concat(whileBusy);
    }
    case 'CallingLlm.CheckingCompaction':
    case 'WaitingForUserInput.CheckingCompaction':
      // The preCompact hook lets the compaction go on, as it is or with instructions for the
      // summary, vetoes it, or fails (it answers so, or its actor crashes) and it goes on.
      return [
        { type: 'PreCompactDecision' },
        { type: 'PreCompactDecision', instructions: 'Keep the list of files read.' },
        { type: 'PreCompactDecision', decision: 'block', reason: 'a release is in progress' },
        { type: 'PreCompactDecision', error: 'the preCompact hook failed: it exited with 1' },
        turnHookCrash('preCompactHook'),
        resume,
        ...whileBusy,
      ];
    case 'CallingLlm.Compacting':
    case 'WaitingForUserInput.Compacting':
      // The summary call answers with the summary, with nothing, or fails (it says so, or its
      // actor crashes); what it streams is dropped.
      return [
        replies.summary,
        replies.empty,
        failures.serverError,
        crash('llm'),
        { type: 'LlmStarted' },
        { type: 'LlmTextDelta', content: 'The user asked' },
        streamedToolCallFragment(context),
        resume,
        ...whileBusy,
      ];
    case 'WaitingForUserInput.SettlingCancelledCalls': {
      // After an interrupt: the aborted calls report how they ended, or the grace period ends
      // (or its timer crashes); input typed meanwhile waits (once is enough to show it).
      const events: PathEvent[] = [
        ...cancellingEvents(context, variant.everyOutcome),
        { type: 'ToolGraceExpired' },
      ];
      if (variant.everyOutcome) events.push(crash('toolGraceTimer'));
      if (context.queue.length === 0) events.push(userInput);
      return events.concat([resume, shutdown]);
    }
    case 'WaitingForUserInput.Ready': {
      // Nothing is in flight at rest, so there is nothing to resume.
      const events: PathEvent[] = [userInput, shutdown];
      if (variant.compact) {
        events.push({ type: 'Compact' }, { type: 'Compact', instructions: 'Keep the open TODOs.' });
      }
      if (permissionsOn && !hasRemembered(context)) {
        // Back to `default`, or on to `plan` (read-only) for the next turn.
        const mode = context.permissionMode === 'default' ? 'plan' : 'default';
        events.push({ type: 'SetPermissionMode', mode });
      }
      return events;
    }
    case 'CallingLlm.Streaming': {
      const events: PathEvent[] = [...variant.replies, ...variant.failures, resume];
      if (variant.everyOutcome) {
        events.push({ type: 'LlmStarted' });
        events.push({ type: 'LlmTextDelta', content: 'Let me look' });
        events.push(streamedToolCallFragment(context));
        events.push(crash('llm'));
      }
      return events.concat(whileBusy);
    }
    case 'ExecutingTools':
      return [...toolEvents(context, variant.everyOutcome), resume, ...whileBusy];
    case 'PostToolsHook': {
      const events: PathEvent[] = [{ type: 'PostToolsHookCompleted', actionTaken: true }, resume];
      if (variant.everyOutcome) {
        events.push({ type: 'PostToolsHookCompleted', actionTaken: false });
        events.push({
          type: 'PostToolsHookCompleted',
          actionTaken: false,
          error: 'auto-commit failed: index.lock exists',
        });
        events.push(crash('postToolsHook'));
      }
      return events.concat(whileBusy);
    }
    case 'Error': {
      const events: PathEvent[] = [
        { type: 'RetryTimeoutFired' },
        { type: 'Resume', retryElapsedMs: 10 },
      ];
      // A crashed timer: the retry happens at once instead of stranding the turn.
      if (variant.everyOutcome) events.push(crash('retryTimer'));
      return events.concat(whileBusy);
    }
    default:
      // Transient (`ProcessingLlmResponse.Deciding`, left by `always` before the walk sees it)
      // and final (`ShuttingDown`): nothing to send.
      return [];
  }
}

/** An invoked actor throwing instead of answering. */
function crash(actor: ActorCrashEvent['actor'], callId?: string): ActorCrashEvent {
  return callId === undefined
    ? { type: 'ActorCrash', actor }
    : { type: 'ActorCrash', actor, callId };
}

/**
 * How a task call's subagent ends: its final answer with what it used, a failure, or its actor
 * crashing (every variant with subagents offers all three: only one has them).
 */
function subagentEvents(callId: string): PathEvent[] {
  return [
    { type: 'ToolCompleted', callId, outcome: reviewed, usage: subagentUsage },
    { type: 'ToolCompleted', callId, outcome: subagentFailed },
    crash('subagent', callId),
  ];
}

/** How the calls an interrupt aborted end: completed anyway, stopped, or their actor crashed. */
function cancellingEvents(context: AgentContext, everyOutcome: boolean): PathEvent[] {
  const events: PathEvent[] = [];
  context.toolRuns.forEach((run, index) => {
    if (run.status !== 'cancelling') return;
    const callId = runId(index);
    if (isSubagentCall(run.call, context.config)) {
      events.push(...subagentEvents(callId));
      return;
    }
    events.push({ type: 'ToolCompleted', callId, outcome: toolSucceeded });
    events.push({ type: 'ToolCompleted', callId, outcome: toolFailed });
    if (everyOutcome) events.push(crash('tool', callId));
  });
  return events;
}

function streamedToolCallFragment(context: AgentContext): AgentEvent {
  // The first fragment opens the call; later ones extend it (the argument JSON grows).
  const started = context.streamingToolCalls.length > 0;
  return {
    type: 'LlmToolCallDelta',
    callId: newCallId(0),
    toolName: 'edit_file',
    argumentsFragment: started ? '"notes.txt"}' : '{"path":',
  };
}

function hasRemembered(context: AgentContext): boolean {
  return Object.keys(context.rememberedDecisions).length > 0;
}

/** The permission settings are still the configured ones. */
function isFresh(context: AgentContext, variant: GraphVariant): boolean {
  return (
    context.permissionMode === (variant.config.permissions?.mode ?? null) && !hasRemembered(context)
  );
}

function toolEvents(context: AgentContext, everyOutcome: boolean): PathEvent[] {
  const events: PathEvent[] = [];
  let waiting = false;
  // Remembered decisions and permission modes persist across turns and multiply the states
  // of every later turn, so the walk explores each on its own: one remembered decision, in
  // the `default` mode, or another mode with nothing remembered.
  const fresh = context.permissionMode === 'default' && !hasRemembered(context);
  context.toolRuns.forEach((run, index) => {
    const callId = runId(index);
    if (run.status === 'running' && isSubagentCall(run.call, context.config)) {
      events.push(...subagentEvents(callId));
    } else if (run.status === 'running') {
      events.push({ type: 'ToolCompleted', callId, outcome: toolSucceeded });
      if (everyOutcome) {
        events.push({ type: 'ToolCompleted', callId, outcome: toolFailed });
        events.push({ type: 'ToolProgress', callId, progress: 'halfway' });
        events.push(crash('tool', callId));
      }
    }
    if (run.status === 'awaitingAnswer') {
      events.push({ type: 'UserAnswer', callId, answers: ['In place'] });
    }
    if (run.status === 'preHook') {
      // The hook passes, allows, denies, asks, or changes the input; or its actor crashes.
      events.push({ type: 'PreToolUseDecision', callId });
      events.push({ type: 'PreToolUseDecision', callId, decision: 'allow' });
      events.push({ type: 'PreToolUseDecision', callId, decision: 'deny', reason: 'not here' });
      events.push({ type: 'PreToolUseDecision', callId, decision: 'ask' });
      events.push({
        type: 'PreToolUseDecision',
        callId,
        input: { path: 'other.txt' },
        context: 'checked by the hook',
      });
      events.push(crash('hook', callId));
    }
    if (run.status === 'postHook') {
      events.push({ type: 'PostToolUseResult', callId, context: 'lint: clean' });
      events.push({ type: 'PostToolUseResult', callId, message: 'explained by the hook' });
      events.push(crash('hook', callId));
    }
    if (run.status === 'awaitingApproval') {
      waiting = true;
      events.push({ type: 'ToolApproval', callId, decision: 'allow' });
      events.push({ type: 'ToolApproval', callId, decision: 'deny', reason: 'not now' });
      if (fresh) {
        events.push({ type: 'ToolApproval', callId, decision: 'allow', remember: true });
        events.push({ type: 'ToolApproval', callId, decision: 'deny', remember: true });
      }
    }
  });
  if (waiting && fresh) {
    for (const mode of MODES_WHILE_WAITING_FOR_APPROVAL) {
      if (mode !== context.permissionMode) events.push({ type: 'SetPermissionMode', mode });
    }
  }
  return events;
}
