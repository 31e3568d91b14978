/**
 * Prototype of a design change, measured, not adopted: one provided machine shared by every
 * agent. `createAgent` calls `agentMachine.provide({ actors })` per agent, because its actors
 * close over that agent's client, tools and bookkeeping; each call builds a new machine (state
 * nodes, transitions) that the idle agent keeps. Here the actors find their agent's dependencies
 * through the actor system instead (a WeakMap keyed by `system`), so `provide` runs once.
 */
import { type AnyActorScope, createActor } from 'xstate';
import { agentMachine, type Message } from '../../src/index.js';
import { SHARED_TOOL_SPECS } from '../fixtures/tools.js';
import { ActorHandles, benchActors, manualTicks } from '../subjects/benchActors.js';
import type { LoopSubject } from '../subjects/loopSubject.js';

type AnyActorSystem = AnyActorScope['system'];

const handlesBySystem = new WeakMap<AnyActorSystem, ActorHandles>();
const ticks = manualTicks(); // synchronous driving: one tick source is enough
const sharedMachine = agentMachine.provide({
  actors: benchActors((system) => {
    const handles = handlesBySystem.get(system);
    if (handles === undefined) throw new Error('an actor of an unknown agent');
    return handles;
  }, ticks.schedule),
});

/** A bare actor of the shared machine, driven like the other subjects. */
export function sharedMachineActor(prior: readonly Message[]) {
  const handles = new ActorHandles();
  const actor = createActor(sharedMachine, {
    input: { config: { tools: SHARED_TOOL_SPECS }, messages: prior as Message[] },
  });
  handlesBySystem.set(actor.system, handles);
  actor.start();
  const llm = () => {
    if (handles.llm === null) throw new Error('no model call is running');
    return handles.llm;
  };
  const subject: LoopSubject = {
    deliver(event) {
      if (event.type === 'ToolCompleted') handles.tools.get(event.callId)?.(event);
      else if (event.type === 'LlmCompleted') {
        llm().flush();
        llm().sendBack(event);
      } else actor.send(event);
    },
    deliverTick(deltas) {
      for (const delta of deltas) llm().push(delta);
      ticks.tick();
    },
    transcript: () => actor.getSnapshot().context.messages,
    get state() {
      return actor.getSnapshot().value;
    },
    get messageCount() {
      return actor.getSnapshot().context.messages.length;
    },
    get textSeen() {
      return 0;
    },
  };
  return { actor, subject };
}
