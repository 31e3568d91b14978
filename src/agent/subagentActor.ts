/**
 * The `subagent` actor: one per task call, spawned by the chart with the call id as its id. It
 * starts a child agent with the task's agent spec, runs the task as the child's one turn, and
 * answers with one `ToolCompleted`: the child's final answer, and what it used. The child's
 * notifications reach the parent's listeners tagged with where it stands in the tree of agents;
 * its approval requests are the parent's. An `AbortTool` event (an interrupt of the parent)
 * interrupts the child, which still answers with what it said so far; stopping the actor (a
 * shutdown of the parent) shuts the child down. A parent with a stored session stores each child's
 * in the same store (see `subagentSessionId`), so a child resumes with its parent.
 */
import { type EventObject, fromCallback } from 'xstate';
import type { InFlightWork } from '../actors/index.js';
import {
  type AgentEvent,
  type BeforeEffect,
  errorMessage,
  errorOutcome,
  lastResponseText,
  type SubagentActorInput,
  subagentUsageOf,
  type ToolOutcome,
  type UsageTotals,
} from '../machine/index.js';
import type { Agent } from './agent.js';
import {
  FORWARDED_NOTIFICATIONS,
  type NotificationHub,
  type SubagentNotification,
  type SubagentRef,
} from './agentNotifications.js';

/**
 * The live children of one agent, by task call id: where `approve` and `deny` find a call that a
 * child (or one of its own) waits on.
 */
export type SubagentChildren = Map<string, Agent>;

/**
 * What the `subagent` actor needs: how to start a child agent for a task, where the parent's
 * listeners are, the parent's live children, and its in-flight work.
 *
 * @example
 * createSubagentActor({ startChild: (input) => createAgent(childOptions(input)), hub, children, inFlight });
 */
export interface SubagentActorOptions {
  startChild: (input: SubagentActorInput) => Agent;
  hub: NotificationHub;
  children: SubagentChildren;
  inFlight?: InFlightWork;
  /** Awaited before the child starts: a stored session records the task call as started. */
  beforeStart?: BeforeEffect;
}

/**
 * Makes the `subagent` actor.
 *
 * @example
 * agentMachine.provide({ actors: { subagent: createSubagentActor(options) } });
 */
export function createSubagentActor(options: SubagentActorOptions) {
  return fromCallback<EventObject, SubagentActorInput>(({ input, sendBack, receive }) => {
    const { call, task } = input;
    const ref: SubagentRef = { callId: call.id, agent: task.agent };
    let child: Agent | undefined;
    let stops: Array<() => void> = [];
    let stopped = false;
    let interrupted = false;
    receive((event) => {
      if (event.type !== 'AbortTool') return;
      interrupted = true;
      child?.interrupt();
    });
    const run = async (): Promise<{ outcome: ToolOutcome; usage?: UsageTotals }> => {
      // A stored session records the task as started first, so the events before it (the
      // response that asked for it) are stored before the child does anything.
      try {
        await options.beforeStart?.({
          effect: 'tool',
          callId: call.id,
          name: call.name,
          mutating: false,
        });
      } catch (error) {
        return { outcome: errorOutcome(`not run: ${errorMessage(error)}`) };
      }
      if (stopped || interrupted) {
        return { outcome: errorOutcome('the subagent was interrupted before it started') };
      }
      let started: Agent;
      try {
        started = options.startChild(input);
      } catch (error) {
        return {
          outcome: errorOutcome(`subagent '${task.agent}' could not start: ${errorMessage(error)}`),
        };
      }
      child = started;
      options.children.set(call.id, started);
      stops = forward(started, ref, options.hub);
      const outcome = await answerOf(started, task.prompt, () => interrupted).then(
        (answer): ToolOutcome =>
          interrupted
            ? errorOutcome(
                `the subagent was interrupted${typeof answer === 'string' && answer !== '' ? `; what it said so far: ${answer}` : ''}`,
              )
            : {
                status: 'success',
                output: typeof answer === 'string' ? answer : JSON.stringify(answer),
              },
        (error: unknown) => errorOutcome(`subagent '${task.agent}' failed: ${errorMessage(error)}`),
      );
      return { outcome, usage: started.usage.session };
    };
    const work = run()
      .then(({ outcome, usage }) => {
        if (stopped) return;
        const event: AgentEvent = {
          type: 'ToolCompleted',
          callId: call.id,
          outcome,
          ...(usage === undefined ? {} : { usage: subagentUsageOf(usage) }),
        };
        sendBack(event);
      })
      .finally(async () => {
        for (const stop of stops) stop();
        options.children.delete(call.id);
        await child?.shutdown().catch(() => undefined);
      });
    options.inFlight?.track(work);
    return () => {
      stopped = true;
      void child?.shutdown().catch(() => undefined);
    };
  });
}

/**
 * The child's answer to the task: its one turn on the task's prompt; or, when the child reopened
 * a stored session that already has it (the parent resumed after its process stopped mid-task),
 * the end of the turn the child resumed.
 */
async function answerOf(
  child: Agent,
  prompt: string,
  interrupted: () => boolean,
): Promise<unknown> {
  await child.ready;
  let answer: unknown;
  // An interrupt that came while the child was opening has no turn to stop: none starts.
  if (interrupted()) answer = '';
  else if (child.context.messages.length === 0) answer = await child.run(prompt);
  else {
    await child.waitUntilIdle();
    answer = lastResponseText(child.context.messages);
  }
  // A stored child's session holds its whole turn before its parent takes the answer.
  await child.recorded();
  return answer;
}

/**
 * The child's notifications, passed on to the parent's listeners with the child's place. Its
 * approval requests are always the parent's; the rest only when the parent has `subagent`
 * listeners as the task starts, since a child followed step by step (its `state` and `toolEnd`)
 * inspects every event it takes.
 */
function forward(child: Agent, ref: SubagentRef, hub: NotificationHub): Array<() => void> {
  const stops = [
    child.on('approvalRequest', ({ call, subagent }) =>
      hub.emit('approvalRequest', { call, subagent: [ref, ...(subagent ?? [])] }),
    ),
  ];
  if (!hub.has('subagent')) return stops;
  for (const type of FORWARDED_NOTIFICATIONS) {
    stops.push(
      child.on(type, (payload) =>
        hub.emit('subagent', {
          path: [ref],
          notification: { type, ...payload } as SubagentNotification,
        }),
      ),
    );
  }
  stops.push(
    child.on('subagent', ({ path, notification }) =>
      hub.emit('subagent', { path: [ref, ...path], notification }),
    ),
  );
  return stops;
}
