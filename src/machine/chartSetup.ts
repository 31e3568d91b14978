/**
 * What the chart is written against: its types, its actors (declared by name, supplied with
 * `machine.provide`) and its guards, and `perform`, which carries out what an action function
 * (the files beside the chart) says.
 */
import { type AnyActorRef, type EventObject, fromCallback, setup } from 'xstate';
import type { AgentAction } from './actions.js';
import type {
  LlmActorInput,
  PostToolsHookInput,
  RetryTimerInput,
  ToolActorInput,
  ToolGraceTimerInput,
  HookInput,
} from './actorInputs.js';
import { runHookAction } from './actorInputs.js';
import { hookActorId } from './actorNames.js';
import type { ChartAction } from './chartStep.js';
import type { AgentContext, AgentMachineInput } from './context.js';
import type { AgentEvent } from './events.js';
import * as guards from './guards.js';
import type { SubagentActorInput } from './subagents.js';

/** An actor placeholder: the machine runs with whatever `provide` supplies in its place. */
function placeholder<TInput>() {
  // `EventObject` as the received-event type so any callback actor with this input fits.
  return fromCallback<EventObject, TInput>(() => undefined);
}

/**
 * Tells a tool call's actor to abort: it keeps running to report how the call really ended. A
 * call whose actor is gone (a restored agent) has nothing to abort.
 */
function abortToolCall(self: AnyActorRef, callId: string): void {
  const { children } = self.getSnapshot() as { children: Record<string, AnyActorRef | undefined> };
  children[callId]?.send({ type: 'AbortTool' });
}

/** The chart's types, actors and guards: what its actions are written against. */
export const chart = setup({
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
    hook: placeholder<HookInput>(),
    subagent: placeholder<SubagentActorInput>(),
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
    approvalsWaiting: ({ context }) => guards.approvalsWaiting(context),
    questionsWaiting: ({ context }) => guards.questionsWaiting(context),
    answersOpenQuestions: ({ context, event }) => guards.answersOpenQuestions(context, event),
    toolHooksRunning: ({ context }) => guards.toolHooksRunning(context),
    isAwaitedHookAnswer: ({ context, event }) => guards.isAwaitedHookAnswer(context, event),
    toolCallsNeedGrace: ({ context }) => guards.toolCallsNeedGrace(context),
    toolsSettling: ({ context }) => guards.toolsSettling(context),
    isCancellingToolCall: ({ context, event }) => guards.isCancellingToolCall(context, event),
    limitReached: ({ context }) => guards.limitReached(context),
    budgetSpent: ({ context }) => guards.budgetSpent(context),
    outputSettled: ({ context }) => guards.outputSettled(context),
    outputAskable: ({ context }) => guards.outputAskable(context),
    carriesOutput: ({ event }) => guards.carriesOutput(event),
    promptHookOn: ({ context }) => guards.promptHookOn(context),
    promptBlocked: ({ event }) => guards.promptBlocked(event),
    stopHookDue: ({ context }) => guards.stopHookDue(context),
    turnContinued: ({ event }) => guards.turnContinued(event),
    compactionDue: ({ context }) => guards.compactionDue(context),
    compactable: ({ context }) => guards.compactable(context),
    preCompactHookOn: ({ context }) => guards.preCompactHookOn(context),
    compactionBlocked: ({ event }) => guards.compactionBlocked(event),
    subagentsRunning: ({ context }) => guards.subagentsRunning(context),
  },
});

/**
 * Performs what an action function says, in one order: stop, abort, context, start, subagents,
 * hooks, emit.
 */
export function perform(action: ChartAction) {
  return chart.enqueueActions(({ context, event, enqueue }) => {
    const step = action(context, event);
    for (const id of step.stop ?? []) enqueue.stopChild(id);
    for (const id of step.abort ?? []) enqueue(({ self }) => abortToolCall(self, id));
    if (step.context !== undefined) enqueue.assign(step.context);
    const start = step.start ?? [];
    for (const call of start) enqueue.spawnChild('tool', { id: call.id, input: { call } });
    if (start.length > 0) enqueue.emit({ type: 'ExecuteTools', calls: [...start] });
    for (const task of step.subagents ?? []) {
      enqueue.spawnChild('subagent', { id: task.call.id, input: task });
      enqueue.emit({ type: 'StartSubagent', ...task });
    }
    for (const hook of step.hooks ?? []) {
      enqueue.spawnChild('hook', { id: hookActorId(hook.call.id), input: hook });
      enqueue.emit(runHookAction(hook));
    }
    for (const emitted of step.emit ?? []) enqueue.emit(emitted);
  });
}

/** Every action function of a module, performed. */
export function performAll<Names extends string>(actions: Record<Names, ChartAction>) {
  const performed = {} as Record<Names, ReturnType<typeof perform>>;
  for (const name of Object.keys(actions) as Names[]) performed[name] = perform(actions[name]);
  return performed;
}
