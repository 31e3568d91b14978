/**
 * Actor mode: the machine as a running XState actor whose invoked actors are the scripted
 * doubles of `scriptedDoubles.ts`, each behind the failure boundary an agent puts around its
 * actors (`withFailureBoundary`). The path's events reach the agent the way they would in a
 * service: model stream events from the LLM double, tool outcomes from the tool doubles (a task
 * call's from its subagent's double), the hooks' and the timers' answers from theirs (a hook on
 * the turn from `promptHook`, `stopHook` or `preCompactHook`, a call's hook from its own),
 * crashes as throws of those doubles (which the boundary turns into the chart's event for the
 * failure), and the rest (user input, approvals, interrupts, shutdown, a resume) sent to the
 * agent from outside.
 *
 * After every event the run also checks what only actor mode has: the doubles it started got
 * the same payload as the actions announced, a `Cancel` stopped what it named, an interrupt or
 * shutdown left nothing running, a crash was reported once as the event the reference took, and
 * the live children are exactly the work in flight.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Actor, type AnyActorRef, createActor, type Snapshot } from 'xstate';
import { type ActorFailureHandler, withFailureBoundary } from '../../src/actors/index.js';
import {
  type AgentAction,
  type AgentConfig,
  type AgentContext,
  type AgentEvent,
  type AgentMachine,
  type AgentStateValue,
} from '../../src/index.js';
import {
  AGENT_ACTOR_NAMES,
  describeStateValue,
  hookActorId,
  hookInputOf,
} from '../../src/machine/index.js';
import { placeOf } from './stateKey.js';
import { stateName } from './coverage.js';
import type { PathRun, RunView, StepResult } from './pathRun.js';
import { crashedActorId, isActorCrash, type PathEvent, toChartEvent } from './pathEvents.js';
import { CRASH_EVENT, doubleOf, type ScriptedDouble, scriptedActors } from './scriptedDoubles.js';

/** A failure the boundary reported: the event that stands for it. */
type ReportedFailure = Parameters<ActorFailureHandler>[0];

/**
 * The machine with the doubles behind their boundaries, and where the boundaries report: a
 * double throws only while a run delivers a crash to it, synchronously, so the run takes what
 * was reported right after (and finds anything reported at another time).
 */
interface Provided {
  machine: AgentMachine;
  reported: ReportedFailure[];
}

const provided = new WeakMap<AgentMachine, Provided>();

function withDoubles(machine: AgentMachine): Provided {
  // `provide` builds a new machine: once per machine, not once per path.
  let result = provided.get(machine);
  if (result === undefined) {
    const reported: ReportedFailure[] = [];
    const onFailure: ActorFailureHandler = (failure) => reported.push(failure);
    const actors = Object.fromEntries(
      AGENT_ACTOR_NAMES.map((name) => [
        name,
        withFailureBoundary(name, scriptedActors[name], onFailure),
      ]),
    ) as typeof scriptedActors;
    result = { machine: machine.provide({ actors }), reported };
    provided.set(machine, result);
  }
  return result;
}

export class ActorRun implements PathRun {
  readonly mode = 'actor mode';
  /** The actions of starting the actor. */
  readonly initialActions: AgentAction[];
  readonly #actor: Actor<AgentMachine>;
  readonly #reported: ReportedFailure[];
  #emitted: AgentAction[] = [];
  readonly #passedThrough: string[] = [];
  #problems: string[] = [];
  #failure: unknown = undefined;

  constructor(machine: AgentMachine, config: AgentConfig) {
    const doubles = withDoubles(machine);
    this.#reported = doubles.reported;
    this.#actor = createActor(doubles.machine, {
      input: { config },
      inspect: (event) => {
        if (event.actorRef === this.#actor && event.type === '@xstate.microstep') {
          this.#passedThrough.push(stateName(event.snapshot));
        }
      },
    });
    this.#actor.on('*', (action) => this.#emitted.push(action));
    // Observed so a failed machine is reported here instead of thrown at the host.
    this.#actor.subscribe({ error: (error) => (this.#failure = error) });
    this.#actor.start();
    this.initialActions = this.#emitted.splice(0);
    this.#passedThrough.length = 0;
  }

  view(): RunView {
    const { value, status, context } = this.#actor.getSnapshot();
    return { state: value, status, context };
  }

  send(event: PathEvent): StepResult {
    const before = this.#actor.getSnapshot();
    const liveBefore = this.#liveDoubles();
    const chartEvent = toChartEvent(event, before.context);
    const accepted = before.can(chartEvent);
    this.#deliver(event, chartEvent, before.value);
    const actions = this.#emitted.splice(0);
    if (this.#failure !== undefined) {
      this.#problems.push(`the actor failed: ${describeError(this.#failure)}`);
      this.#failure = undefined;
    }
    this.#checkDoubles(event, actions, before.context, liveBefore, this.#liveDoubles());
    return { ...this.view(), accepted, actions, passedThrough: this.#passedThrough.splice(0) };
  }

  /** The ids of every child of the agent, live or not. */
  childIds(): string[] {
    return Object.keys(this.#children());
  }

  takeProblems(): string[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }

  stop(): void {
    this.#actor.stop();
  }

  #children(): Record<string, AnyActorRef | undefined> {
    return this.#actor.getSnapshot().children as Record<string, AnyActorRef | undefined>;
  }

  #liveDoubles(): Map<string, ScriptedDouble> {
    const live = new Map<string, ScriptedDouble>();
    for (const [id, child] of Object.entries(this.#children())) {
      const double = child === undefined ? undefined : doubleOf(child);
      if (child !== undefined && isActive(child) && double !== undefined) live.set(id, double);
    }
    return live;
  }

  #deliver(event: PathEvent, chartEvent: AgentEvent, value: AgentStateValue): void {
    const state = describeStateValue(value);
    if (this.#reported.length > 0) {
      this.#problems.push(`a failure was reported while no actor crashed`);
      this.#reported.length = 0;
    }
    if (isActorCrash(event)) {
      const child = this.#children()[crashedActorId(event)];
      if (child === undefined) {
        this.#problems.push(`no actor '${crashedActorId(event)}' to crash in ${state}`);
        return;
      }
      child.send(CRASH_EVENT);
      // Reported once, as the event the chart takes for the failure; the agent is given it as
      // an agent's own failure handler gives it.
      const reported = this.#reported.splice(0);
      if (reported.length !== 1 || !isDeepStrictEqual(reported[0]?.event, chartEvent)) {
        this.#problems.push(
          `the crash was reported as ${JSON.stringify(reported.map((failure) => failure.event))}, expected once as ${JSON.stringify(chartEvent)}`,
        );
      }
      for (const failure of reported) this.#actor.send(failure.event);
      return;
    }
    const from = (id: string) => {
      const child = this.#children()[id];
      const double = child === undefined ? undefined : doubleOf(child);
      if (double === undefined || double.control.stopped) {
        this.#problems.push(`${event.type} has no live '${id}' actor to come from in ${state}`);
        return;
      }
      double.control.sendBack(event);
    };
    switch (event.type) {
      case 'LlmStarted':
      case 'LlmTextDelta':
      case 'LlmToolCallDelta':
      case 'LlmCompleted':
      case 'LlmError':
        return from('llm');
      case 'ToolCompleted':
      case 'ToolProgress':
        return from(event.callId);
      case 'PostToolsHookCompleted':
        return from('postToolsHook');
      case 'RetryTimeoutFired':
        return from('retryTimer');
      case 'ToolGraceExpired':
        return from('toolGraceTimer');
      case 'PreToolUseDecision':
      case 'PostToolUseResult':
        return from(hookActorId(event.callId));
      case 'UserPromptSubmitDecision':
        return from('promptHook');
      case 'StopDecision':
        return from('stopHook');
      case 'PreCompactDecision':
        return from('preCompactHook');
      default:
        this.#actor.send(event);
    }
  }

  #checkDoubles(
    event: PathEvent,
    actions: AgentAction[],
    contextBefore: AgentContext,
    liveBefore: Map<string, ScriptedDouble>,
    liveAfter: Map<string, ScriptedDouble>,
  ): void {
    const started = [...liveAfter].filter(([id, double]) => liveBefore.get(id) !== double);
    const stopped = [...liveBefore].filter(([id, double]) => liveAfter.get(id) !== double);
    const startedOf = (kind: ScriptedDouble['kind']) =>
      started.flatMap(([, double]) => (double.kind === kind ? [double] : []));

    // Every actor started got what the corresponding action announced, and vice versa; the
    // summary of a compaction is a model call like any other.
    const requests = actions.flatMap((a) =>
      a.type === 'SendLlmRequest' || a.type === 'SendCompactionRequest' ? [a.request] : [],
    );
    const llmInputs = startedOf('llm').flatMap((d) => (d.kind === 'llm' ? [d.input.request] : []));
    this.#expectSame('model requests', requests, llmInputs);
    const calls = actions.flatMap((a) => (a.type === 'ExecuteTools' ? a.calls : []));
    const toolInputs = startedOf('tool').flatMap((d) => (d.kind === 'tool' ? [d.input.call] : []));
    this.#expectSame('tool calls', sortById(calls), sortById(toolInputs));
    // A task call's subagent: one `subagent` actor each, with what its `StartSubagent` names.
    const tasks = actions.flatMap((a) => {
      if (a.type !== 'StartSubagent') return [];
      const { type: _type, ...input } = a;
      return [input];
    });
    const subagentInputs = startedOf('subagent').flatMap((d) =>
      d.kind === 'subagent' ? [d.input] : [],
    );
    this.#expectSame('subagents', sortByCall(tasks), sortByCall(subagentInputs));
    const hooks = actions.flatMap((a) => (a.type === 'RunPostToolsHook' ? [a.completedTools] : []));
    const hookInputs = startedOf('postToolsHook').flatMap((d) =>
      d.kind === 'postToolsHook' ? [d.input.completedTools] : [],
    );
    this.#expectSame('post-tools hooks', hooks, hookInputs);
    // The hooks on calls and on the turn: one `hook` actor each, with what its action names.
    const hookRuns = actions.flatMap((a) =>
      a.type === 'RunPreToolUseHook' ||
      a.type === 'RunPostToolUseHook' ||
      a.type === 'RunUserPromptSubmitHook' ||
      a.type === 'RunPreCompactHook' ||
      a.type === 'RunStopHook'
        ? [hookInputOf(a)]
        : [],
    );
    const hookRunInputs = startedOf('hook').flatMap((d) => (d.kind === 'hook' ? [d.input] : []));
    this.#expectSame('hooks', hookRuns, hookRunInputs);
    const retries = actions.flatMap((a) =>
      a.type === 'ScheduleRetry' ? [{ delayMs: a.delayMs, attempt: a.attempt }] : [],
    );
    const timerInputs = startedOf('retryTimer').flatMap((d) =>
      d.kind === 'retryTimer' ? [d.input] : [],
    );
    this.#expectSame('retry timers', retries, timerInputs);
    // A `Cancel` with a grace period starts the wait for the aborted calls, with that period.
    const graces = actions.flatMap((a) =>
      a.type === 'Cancel' && a.graceMs !== undefined ? [{ delayMs: a.graceMs }] : [],
    );
    const graceInputs = startedOf('toolGraceTimer').flatMap((d) =>
      d.kind === 'toolGraceTimer' ? [d.input] : [],
    );
    this.#expectSame('grace timers', graces, graceInputs);

    // A `Cancel` names open work — a running actor, which is stopped now, or a tool call
    // still waiting for its approval, whose prompt the caller withdraws.
    const open = new Set(
      contextBefore.toolRuns.flatMap((run) => (run.status === 'done' ? [] : [run.call.id])),
    );
    for (const action of actions) {
      if (action.type !== 'Cancel') continue;
      for (const id of cancelledIds(action, liveBefore)) {
        const double = liveBefore.get(id);
        if (double === undefined && !open.has(id)) {
          this.#problems.push(`Cancel names '${id}', which was neither running nor waiting`);
        } else if (
          double !== undefined &&
          !double.control.stopped &&
          action.graceMs === undefined
        ) {
          // With a grace period the call keeps running to report how it ended.
          this.#problems.push(`Cancel names '${id}', which still runs`);
        }
      }
    }
    // Ending a turn early cancels everything that ran, by name; the wait for calls an interrupt
    // aborted ends with a Cancel naming those calls.
    if (
      !isActorCrash(event) &&
      (event.type === 'Interrupt' || event.type === 'ShutdownRequested')
    ) {
      const cancels = actions.filter((action) => action.type === 'Cancel');
      const cancelled = new Set(cancels.flatMap((cancel) => cancelledIds(cancel, liveBefore)));
      if (cancels.some((action) => action.toolCallIds !== undefined))
        cancelled.add('toolGraceTimer');
      for (const [id] of stopped) {
        // A call's hook is cancelled with the call.
        if (!cancelled.has(id.replace(/#hook$/, '')))
          this.#problems.push(`${event.type} stopped '${id}' without a Cancel naming it`);
      }
    }
    // The live children are exactly the work the state has in flight.
    const expected = inFlight(this.#actor.getSnapshot().value, this.#actor.getSnapshot().context);
    const live = [...liveAfter.keys()].sort();
    if (!isDeepStrictEqual(live, expected)) {
      this.#problems.push(
        `live actors are [${live.join(', ')}], expected [${expected.join(', ')}]`,
      );
    }
  }

  #expectSame(what: string, announced: unknown[], started: unknown[]): void {
    if (!isDeepStrictEqual(announced, started)) {
      this.#problems.push(
        `${what}: actions announced ${JSON.stringify(announced)} but the actors started with ${JSON.stringify(started)}`,
      );
    }
  }
}

function isActive(child: AnyActorRef): boolean {
  return (child.getSnapshot() as Snapshot<unknown>).status === 'active';
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

/** The hooks that run alone, each in a state of its own: what a `Cancel`'s `hook` names. */
const ALONE_HOOKS = ['postToolsHook', 'promptHook', 'stopHook', 'preCompactHook'];

/**
 * The child ids a `Cancel` names. Its `hook` names the hook that runs alone, whichever of them
 * was running (with none running, the post-tools hook, so the check reports it).
 */
function cancelledIds(
  action: Extract<AgentAction, { type: 'Cancel' }>,
  liveBefore: Map<string, ScriptedDouble>,
): string[] {
  const aloneHooks = ALONE_HOOKS.filter((id) => liveBefore.has(id));
  return [
    ...(action.llm ? ['llm'] : []),
    ...(action.toolCallIds ?? []),
    ...(action.hook ? (aloneHooks.length > 0 ? aloneHooks : ['postToolsHook']) : []),
    ...(action.retry ? ['retryTimer'] : []),
  ];
}

function sortById<T extends { id: string }>(calls: T[]): T[] {
  return [...calls].sort((a, b) => a.id.localeCompare(b.id));
}

function sortByCall<T extends { call: { id: string } }>(tasks: T[]): T[] {
  return [...tasks].sort((a, b) => a.call.id.localeCompare(b.call.id));
}

/** The ids of the children a state should have running. */
function inFlight(value: AgentStateValue, context: AgentContext): string[] {
  switch (placeOf(value)) {
    // The model streams a response, or writes the summary of a compaction.
    case 'CallingLlm.Streaming':
    case 'CallingLlm.Compacting':
    case 'WaitingForUserInput.Compacting':
      return ['llm'];
    case 'CallingLlm.CheckingCompaction':
    case 'WaitingForUserInput.CheckingCompaction':
      return ['preCompactHook'];
    case 'ExecutingTools':
      return context.toolRuns
        .flatMap((run) =>
          run.status === 'running'
            ? [run.call.id]
            : run.status === 'preHook' || run.status === 'postHook'
              ? [hookActorId(run.call.id)]
              : [],
        )
        .sort();
    case 'PostToolsHook':
      return ['postToolsHook'];
    case 'WaitingForUserInput.CheckingPrompt':
      return ['promptHook'];
    case 'ProcessingLlmResponse.CheckingStop':
      return ['stopHook'];
    case 'Error':
      return ['retryTimer'];
    case 'WaitingForUserInput.SettlingCancelledCalls':
      // Calls an interrupt aborted run on until they report how they ended, or time is up.
      return [
        ...context.toolRuns.flatMap((run) => (run.status === 'cancelling' ? [run.call.id] : [])),
        'toolGraceTimer',
      ].sort();
    default:
      return [];
  }
}
