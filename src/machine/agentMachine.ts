/**
 * The agent's loop as one XState v5 statechart: Loom's seven states, with interrupts, queued
 * input, permissions and approvals. No I/O happens here: the invoked actors (`llm`, `tool`,
 * `postToolsHook`, `retryTimer`) are declared by name and supplied with `machine.provide`, and
 * every `AgentAction` is an emitted event, which is what pure mode returns and what actor mode
 * reports to listeners.
 */
import {
  and,
  type AnyActorRef,
  assign,
  not,
  type EventObject,
  emit,
  enqueueActions,
  fromCallback,
  raise,
  setup,
} from 'xstate';
import type {
  LlmActorInput,
  PostToolsHookInput,
  RetryTimerInput,
  ToolActorInput,
  ToolGraceTimerInput,
} from './actorInputs.js';
import { retryDelay } from './backoff.js';
import { changedPathsOf } from './changedPathsOf.js';
import { errorMessage } from './agentStatechartError.js';
import { deduplicateToolUseIds } from './deduplicateToolUseIds.js';
import {
  type AgentContext,
  type AgentMachineInput,
  createInitialContext,
  type ToolRun,
} from './context.js';
import * as guards from './guards.js';
import {
  closeOpenRuns,
  completedToolsOf,
  errorOutcome,
  expireCancelledRuns,
  interruptRuns,
  openRunIds,
  resumeRuns,
  runIdsWithStatus,
  settleCancelledRun,
  settleToolRuns,
  shutDownRuns,
  updateRun,
} from './toolRuns.js';
import { buildRequest, partialAssistantMessage, toolResultsMessage } from './transcript.js';
import type { AgentAction, AgentEvent, LlmError, Message } from './types.js';

/** An actor placeholder: the machine runs with whatever `provide` supplies in its place. */
function placeholder<TInput>() {
  // `EventObject` as the received-event type so any callback actor with this input fits.
  return fromCallback<EventObject, TInput>(() => undefined);
}

/** Events that end a turn early; exit actions use them to keep partial work and cancel the rest. */
function endsTurnEarly(event: AgentEvent): boolean {
  return event.type === 'Interrupt' || event.type === 'ShutdownRequested';
}

/**
 * Tells a tool call's actor to abort: it keeps running to report how the call really ended. A
 * call whose actor is gone (a restored agent) has nothing to abort.
 */
function abortToolCall(self: AnyActorRef, callId: string): void {
  const children = (self.getSnapshot() as { children: Record<string, AnyActorRef | undefined> })
    .children;
  children[callId]?.send({ type: 'AbortTool' });
}

/** The id of the grace timer an interrupt starts (tool call ids come from the model). */
const TOOL_GRACE_TIMER = '#toolGraceTimer';

function describeGiveUp(error: LlmError, attempts: number): string {
  if (guards.NON_RETRYABLE_ERRORS.has(error.kind)) {
    return `Model call failed (${error.kind}, not retried): ${error.message}`;
  }
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return `Model call failed after ${tries} (${error.kind}): ${error.message}`;
}

function hasContent(message: Message): boolean {
  return message.content.length > 0;
}

/** The transcript with `message` appended: a new array, so no snapshot's transcript changes. */
function appended(context: AgentContext, message: Message | null): Message[] {
  return message === null ? context.messages : [...context.messages, message];
}

/**
 * The agent statechart. Use it through `AgentCore` (pure mode) or `createAgent` (actor mode), or
 * directly with your own actors:
 *
 * @example
 * import { createActor } from 'xstate';
 * const actor = createActor(
 *   agentMachine.provide({ actors: { llm: myLlm, tool: myTool, postToolsHook: myHook, retryTimer: myTimer } }),
 *   { input: { config: { maxRetries: 3 } } },
 * );
 * actor.on('SendLlmRequest', ({ request }) => console.log(request.messages.length));
 * actor.start();
 * actor.send({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- declares the input type
    input: {} as AgentMachineInput | undefined,
    emitted: {} as AgentAction,
  },
  actors: {
    llm: placeholder<LlmActorInput>(),
    tool: placeholder<ToolActorInput>(),
    postToolsHook: placeholder<PostToolsHookInput>(),
    retryTimer: placeholder<RetryTimerInput>(),
    toolGraceTimer: placeholder<ToolGraceTimerInput>(),
  },
  guards: {
    attemptsLeft: ({ context }) => guards.attemptsLeft(context),
    retryableError: ({ event }) => guards.retryableError(event),
    allToolsDone: ({ context }) => guards.allToolsDone(context),
    anyMutatingToolSucceeded: ({ context }) => guards.anyMutatingToolSucceeded(context),
    hasToolCalls: ({ context }) => guards.hasToolCalls(context),
    responseRefused: ({ context }) => guards.responseRefused(context),
    hasQueuedInput: ({ context }) => guards.hasQueuedInput(context),
    isRunningToolCall: ({ context, event }) => guards.isRunningToolCall(context, event),
    isAwaitingApproval: ({ context, event }) => guards.isAwaitingApproval(context, event),
    toolsSettling: ({ context }) => guards.toolsSettling(context),
    isCancellingToolCall: ({ context, event }) => guards.isCancellingToolCall(context, event),
  },
  actions: {
    // ── turns ───────────────────────────────────────────────────────────────────────────────
    startTurn: assign(({ context, event }) => {
      if (event.type !== 'UserInput') return {};
      return { messages: appended(context, event.message), retries: 0 };
    }),
    startQueuedTurn: assign(({ context }) => {
      const [next, ...rest] = context.queue;
      return { messages: appended(context, next ?? null), queue: rest, retries: 0 };
    }),
    enqueueInput: assign(({ context, event }) => {
      if (event.type !== 'UserInput') return {};
      return { queue: context.queue.concat([event.message]) };
    }),
    announceIdle: enqueueActions(({ context, enqueue }) => {
      // The turn is over; queued input starts the next one at once instead.
      if (context.queue.length === 0) enqueue.emit({ type: 'WaitForInput' });
    }),
    announceShutdown: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: 'Shutdown', discardedInput: context.queue });
      enqueue.assign({ queue: [] });
    }),
    setPermissionMode: assign(({ event }) => {
      if (event.type !== 'SetPermissionMode') return {};
      return { permissionMode: event.mode };
    }),

    // ── the model call ──────────────────────────────────────────────────────────────────────
    sendLlmRequest: emit(({ context }) => ({
      type: 'SendLlmRequest' as const,
      request: buildRequest(context),
    })),
    appendStreamedText: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'LlmTextDelta') return;
      // String concatenation builds a rope in V8: O(1) per delta whatever the length.
      enqueue.assign({ streamingText: context.streamingText + event.content });
      enqueue.emit({ type: 'DisplayMessage', text: event.content });
    }),
    appendToolCallFragment: assign(({ context, event }) => {
      if (event.type !== 'LlmToolCallDelta') return {};
      const calls = context.streamingToolCalls;
      const last = calls[calls.length - 1];
      if (last !== undefined && last.id === event.callId) {
        const updated = { ...last, argumentsJson: last.argumentsJson + event.argumentsFragment };
        return { streamingToolCalls: calls.slice(0, -1).concat([updated]) };
      }
      const existing = calls.find((call) => call.id === event.callId);
      if (existing !== undefined) {
        return {
          streamingToolCalls: calls.map((call) =>
            call.id === event.callId
              ? { ...call, argumentsJson: call.argumentsJson + event.argumentsFragment }
              : call,
          ),
        };
      }
      const started = {
        id: event.callId,
        name: event.toolName,
        argumentsJson: event.argumentsFragment,
      };
      return { streamingToolCalls: calls.concat([started]) };
    }),
    recordResponse: assign(({ context, event }) => {
      if (event.type !== 'LlmCompleted') return {};
      // One run per tool_use id, and no id twice in any later request.
      const { response, toolRuns } = deduplicateToolUseIds(event.response, context.messages);
      // The API rejects an empty assistant message in the middle of a transcript.
      const message = hasContent(response.message) ? response.message : null;
      return {
        messages: appended(context, message),
        toolRuns,
        stopReason: response.stopReason ?? null,
        // A container stays in use until a response names another.
        containerId: response.container?.id ?? context.containerId,
        retries: 0,
        lastError: null,
        responses: context.responses + 1,
        usage: {
          input_tokens: context.usage.input_tokens + (response.usage?.input_tokens ?? 0),
          output_tokens: context.usage.output_tokens + (response.usage?.output_tokens ?? 0),
        },
      };
    }),
    recordRetryableError: assign(({ context, event }) => {
      if (event.type !== 'LlmError') return {};
      const retries = context.retries + 1;
      const { delayMs, rngState } = retryDelay(
        retries,
        context.config.backoff,
        context.rngState,
        event.error.retryAfterMs,
      );
      return { retries, lastError: event.error, retryDelayMs: delayMs, rngState };
    }),
    giveUp: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'LlmError') return;
      enqueue.assign({ lastError: event.error, retries: 0 });
      enqueue.emit({
        type: 'DisplayError',
        message: describeGiveUp(event.error, context.retries + 1),
      });
    }),
    reportLlmCrash: raise(({ event }) => ({
      type: 'LlmError' as const,
      error: {
        kind: 'unknown' as const,
        message: `the llm actor failed: ${errorMessage((event as { error?: unknown }).error)}`,
      },
    })),
    closeModelCall: enqueueActions(({ context, event, enqueue }) => {
      if (endsTurnEarly(event)) {
        // Keep what the user already saw; drop half-streamed tool calls (they have no result).
        const partial = partialAssistantMessage(context.streamingText);
        enqueue.assign({ messages: appended(context, partial) });
        enqueue.emit({ type: 'Cancel', llm: true });
      }
      enqueue.assign({ streamingText: '', streamingToolCalls: [] });
    }),

    // ── processing the response ─────────────────────────────────────────────────────────────
    refuseToolCalls: assign(({ context }) => {
      if (context.toolRuns.length === 0) return {};
      const runs = closeOpenRuns(
        context.toolRuns,
        errorOutcome('not run: the model ended its response with a refusal'),
      );
      return { toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) };
    }),
    reportStopReason: enqueueActions(({ context, enqueue }) => {
      if (context.stopReason === 'refusal') {
        enqueue.emit({
          type: 'DisplayError',
          message: 'The model declined to continue (stop_reason: refusal).',
        });
      } else if (context.stopReason === 'max_tokens') {
        enqueue.emit({
          type: 'DisplayError',
          message: `The response was cut off at max_tokens (${context.config.maxTokens}); ask the model to continue.`,
        });
      }
    }),

    // ── tools ───────────────────────────────────────────────────────────────────────────────
    startToolRuns: enqueueActions(({ context, enqueue }) => {
      const plan = settleToolRuns(context);
      enqueue.assign({ toolRuns: plan.runs });
      for (const call of plan.start) enqueue.spawnChild('tool', { id: call.id, input: { call } });
      if (plan.start.length > 0) enqueue.emit({ type: 'ExecuteTools', calls: plan.start });
      for (const call of plan.ask) enqueue.emit({ type: 'RequestApproval', call });
    }),
    applyApproval: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ToolApproval') return;
      const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
      if (run === undefined) return;
      const remembered = event.remember
        ? { ...context.rememberedDecisions, [run.call.name]: event.decision }
        : context.rememberedDecisions;
      let runs =
        event.decision === 'allow'
          ? updateRun(context.toolRuns, event.callId, { status: 'running' })
          : updateRun(context.toolRuns, event.callId, {
              status: 'done',
              outcome: errorOutcome(
                `permission denied: the user refused this ${run.call.name} call`,
              ),
            });
      const start = event.decision === 'allow' ? [run.call] : [];
      if (event.remember) {
        // A remembered decision may settle other calls of the same tool that are waiting too.
        const plan = settleToolRuns({
          ...context,
          toolRuns: runs,
          rememberedDecisions: remembered,
        });
        runs = plan.runs;
        start.push(...plan.start);
      }
      enqueue.assign({ toolRuns: runs, rememberedDecisions: remembered });
      for (const call of start) enqueue.spawnChild('tool', { id: call.id, input: { call } });
      if (start.length > 0) enqueue.emit({ type: 'ExecuteTools', calls: start });
    }),
    recheckApprovals: enqueueActions(({ context, enqueue }) => {
      const plan = settleToolRuns(context);
      enqueue.assign({ toolRuns: plan.runs });
      for (const call of plan.start) enqueue.spawnChild('tool', { id: call.id, input: { call } });
      if (plan.start.length > 0) enqueue.emit({ type: 'ExecuteTools', calls: plan.start });
    }),
    recordToolOutcome: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ToolCompleted') return;
      enqueue.assign({
        toolRuns: updateRun(context.toolRuns, event.callId, {
          status: 'done',
          outcome: event.outcome,
        }),
      });
      enqueue.stopChild(event.callId);
    }),
    recordToolProgress: assign(({ context, event }) => {
      if (event.type !== 'ToolProgress') return {};
      return { toolRuns: updateRun(context.toolRuns, event.callId, { progress: event.progress }) };
    }),
    recordToolCrash: enqueueActions(({ context, event, enqueue }) => {
      // A tool actor that throws is broken infrastructure; the model still gets an answer.
      const crash = event as unknown as { type: string; error?: unknown };
      const callId = crash.type.slice('xstate.error.actor.'.length);
      const run = context.toolRuns.find((candidate) => candidate.call.id === callId);
      if (run === undefined || run.status !== 'running') return;
      enqueue.assign({
        toolRuns: updateRun(context.toolRuns, callId, {
          status: 'done',
          outcome: errorOutcome(`tool '${run.call.name}' failed: ${errorMessage(crash.error)}`),
        }),
      });
      // A failed child stays in `children` until stopped; stop it so it is not carried forever.
      enqueue.stopChild(callId);
    }),
    closeToolRuns: enqueueActions(({ context, event, enqueue }) => {
      const open = openRunIds(context.toolRuns);
      const { tools, toolGraceMs } = context.config;
      if (event.type !== 'Interrupt') {
        // Every call is done (or the agent shuts down): the results go in now.
        const runs = shutDownRuns(context.toolRuns, tools);
        enqueue.assign({ toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) });
        for (const id of open) enqueue.stopChild(id);
        if (open.length > 0) enqueue.emit({ type: 'Cancel', toolCallIds: open });
        return;
      }
      // An interrupted call may finish its work anyway: abort it, keep it, and wait (briefly)
      // to learn how it ended before its result goes in.
      const runs = interruptRuns(context.toolRuns, tools, toolGraceMs);
      const cancelling = runIdsWithStatus(runs, 'cancelling');
      for (const id of open) {
        if (cancelling.includes(id)) enqueue(({ self }) => abortToolCall(self, id));
        else enqueue.stopChild(id);
      }
      if (cancelling.length === 0) {
        enqueue.assign({ toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) });
        if (open.length > 0) enqueue.emit({ type: 'Cancel', toolCallIds: open });
        return;
      }
      enqueue.assign({ toolRuns: runs });
      enqueue.spawnChild('toolGraceTimer', {
        id: TOOL_GRACE_TIMER,
        input: { delayMs: toolGraceMs },
      });
      enqueue.emit({ type: 'Cancel', toolCallIds: open, graceMs: toolGraceMs });
    }),
    resumeToolRuns: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'Resume') return;
      const { runs, start } = resumeRuns(
        context.toolRuns,
        context.config.tools,
        event.startedToolCallIds,
      );
      // Work that was in flight is taken as lost: an actor still running it (a resume sent to a
      // live agent) is stopped before the call is started again or answered.
      for (const id of openRunIds(context.toolRuns)) enqueue.stopChild(id);
      enqueue.assign({ toolRuns: runs });
      for (const call of start) enqueue.spawnChild('tool', { id: call.id, input: { call } });
      if (start.length > 0) enqueue.emit({ type: 'ExecuteTools', calls: start });
      for (const run of runs) {
        if (run.status === 'awaitingApproval')
          enqueue.emit({ type: 'RequestApproval', call: run.call });
      }
    }),

    // ── after an interrupt: learning how aborted tool calls ended ───────────────────────────
    settleCancelledCall: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ToolCompleted') return;
      enqueue.stopChild(event.callId);
      const runs = settleCancelledRun(context.toolRuns, event.callId, event.outcome);
      if (runs.some((run) => run.status === 'cancelling')) {
        enqueue.assign({ toolRuns: runs });
        return;
      }
      enqueue.stopChild(TOOL_GRACE_TIMER);
      enqueue.assign({ toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) });
    }),
    endSettling: enqueueActions(({ context, event, enqueue }) => {
      if (!guards.toolsSettling(context)) return;
      const silent = runIdsWithStatus(context.toolRuns, 'cancelling');
      for (const id of silent) enqueue.stopChild(id);
      enqueue.stopChild(TOOL_GRACE_TIMER);
      // No more waiting for these calls: their actors are stopped, a late result is ignored.
      enqueue.emit({ type: 'Cancel', toolCallIds: silent });
      // Shutting down says so; a grace period that ran out, or a restart, says what is known.
      const runs: ToolRun[] =
        event.type === 'ShutdownRequested'
          ? shutDownRuns(context.toolRuns, context.config.tools)
          : expireCancelledRuns(context.toolRuns, context.config.tools);
      enqueue.assign({ toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) });
    }),
    resumeIdle: enqueueActions(({ context, enqueue }) => {
      if (!guards.toolsSettling(context) && context.queue.length === 0) {
        enqueue.emit({ type: 'WaitForInput' });
      }
    }),

    // ── hook and retry ──────────────────────────────────────────────────────────────────────
    runPostToolsHook: emit(({ context }) => ({
      type: 'RunPostToolsHook' as const,
      completedTools: completedToolsOf(context.toolRuns),
    })),
    reportHookFailure: emit(({ event }) => ({
      type: 'DisplayError' as const,
      message: `The post-tools hook failed and was skipped: ${errorMessage((event as { error?: unknown }).error)}`,
    })),
    closePostToolsHook: enqueueActions(({ event, enqueue }) => {
      if (endsTurnEarly(event)) enqueue.emit({ type: 'Cancel', hook: true });
    }),
    announceRetry: emit(({ context }) => ({
      type: 'ScheduleRetry' as const,
      delayMs: context.retryDelayMs,
      attempt: context.retries + 1,
    })),
    reportRetryTimerFailure: emit(({ event }) => ({
      type: 'DisplayError' as const,
      message: `The retry timer failed (${errorMessage((event as { error?: unknown }).error)}); retrying now.`,
    })),
    resumeRetryDelay: assign(({ context, event }) => {
      if (event.type !== 'Resume' || event.retryDelayMs === undefined) return {};
      return { retryDelayMs: Math.max(0, Math.min(event.retryDelayMs, context.retryDelayMs)) };
    }),
    closeRetry: enqueueActions(({ event, enqueue }) => {
      if (endsTurnEarly(event)) enqueue.emit({ type: 'Cancel', retry: true });
    }),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => createInitialContext(input),
  initial: 'WaitingForUserInput',
  on: {
    UserInput: { actions: 'enqueueInput' },
    SetPermissionMode: { actions: 'setPermissionMode' },
    ShutdownRequested: { target: '.ShuttingDown' },
  },
  states: {
    WaitingForUserInput: {
      entry: 'announceIdle',
      exit: 'endSettling',
      always: {
        guard: and(['hasQueuedInput', not('toolsSettling')]),
        target: 'CallingLlm',
        actions: 'startQueuedTurn',
      },
      on: {
        // Until every aborted tool call has its result, new input waits its turn.
        UserInput: [
          { guard: 'toolsSettling', actions: 'enqueueInput' },
          { target: 'CallingLlm', actions: 'startTurn' },
        ],
        ToolCompleted: { guard: 'isCancellingToolCall', actions: 'settleCancelledCall' },
        ToolGraceExpired: { guard: 'toolsSettling', actions: 'endSettling' },
        Resume: { actions: ['endSettling', 'resumeIdle'] },
      },
    },
    CallingLlm: {
      entry: 'sendLlmRequest',
      exit: 'closeModelCall',
      invoke: {
        id: 'llm',
        src: 'llm',
        input: ({ context }) => ({ request: buildRequest(context) }),
        onError: { actions: 'reportLlmCrash' },
      },
      on: {
        LlmTextDelta: { actions: 'appendStreamedText' },
        LlmToolCallDelta: { actions: 'appendToolCallFragment' },
        LlmCompleted: { target: 'ProcessingLlmResponse', actions: 'recordResponse' },
        Resume: { target: 'CallingLlm', reenter: true },
        LlmError: [
          {
            guard: and(['retryableError', 'attemptsLeft']),
            target: 'Error',
            actions: 'recordRetryableError',
          },
          { target: 'WaitingForUserInput', actions: 'giveUp' },
        ],
        Interrupt: { target: 'WaitingForUserInput' },
      },
    },
    ProcessingLlmResponse: {
      always: [
        {
          guard: 'responseRefused',
          target: 'WaitingForUserInput',
          actions: ['refuseToolCalls', 'reportStopReason'],
        },
        { guard: 'hasToolCalls', target: 'ExecutingTools' },
        { target: 'WaitingForUserInput', actions: 'reportStopReason' },
      ],
    },
    ExecutingTools: {
      entry: 'startToolRuns',
      exit: 'closeToolRuns',
      always: [
        { guard: and(['allToolsDone', 'anyMutatingToolSucceeded']), target: 'PostToolsHook' },
        { guard: 'allToolsDone', target: 'CallingLlm' },
      ],
      on: {
        ToolCompleted: { guard: 'isRunningToolCall', actions: 'recordToolOutcome' },
        ToolProgress: { guard: 'isRunningToolCall', actions: 'recordToolProgress' },
        ToolApproval: { guard: 'isAwaitingApproval', actions: 'applyApproval' },
        SetPermissionMode: { actions: ['setPermissionMode', 'recheckApprovals'] },
        'xstate.error.actor.*': { actions: 'recordToolCrash' },
        Interrupt: { target: 'WaitingForUserInput' },
        Resume: { actions: 'resumeToolRuns' },
      },
    },
    PostToolsHook: {
      entry: 'runPostToolsHook',
      exit: 'closePostToolsHook',
      invoke: {
        id: 'postToolsHook',
        src: 'postToolsHook',
        input: ({ context }) => ({
          completedTools: completedToolsOf(context.toolRuns),
          calls: context.toolRuns.map((run) => run.call),
          changedPaths: changedPathsOf(context.toolRuns),
        }),
        onError: { target: 'CallingLlm', actions: 'reportHookFailure' },
      },
      on: {
        PostToolsHookCompleted: { target: 'CallingLlm' },
        Interrupt: { target: 'WaitingForUserInput' },
        Resume: { target: 'PostToolsHook', reenter: true },
      },
    },
    Error: {
      entry: 'announceRetry',
      exit: 'closeRetry',
      invoke: {
        id: 'retryTimer',
        src: 'retryTimer',
        input: ({ context }) => ({ delayMs: context.retryDelayMs, attempt: context.retries + 1 }),
        // A broken timer must not strand the turn: retry at once and say so.
        onError: { target: 'CallingLlm', actions: 'reportRetryTimerFailure' },
      },
      on: {
        RetryTimeoutFired: { target: 'CallingLlm' },
        Interrupt: { target: 'WaitingForUserInput' },
        Resume: { target: 'Error', reenter: true, actions: 'resumeRetryDelay' },
      },
    },
    ShuttingDown: {
      type: 'final',
      entry: 'announceShutdown',
    },
  },
});

/**
 * The type of the agent machine, for code that provides its actors or reads its snapshots.
 *
 * @example
 * function withActors(machine: AgentMachine) { return machine.provide({ actors: { … } }); }
 */
export type AgentMachine = typeof agentMachine;
