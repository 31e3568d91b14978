/**
 * One agent machine for every agent `createAgent` starts. `machine.provide` builds a whole new
 * machine (about 22 KB per agent, measured); instead, the machine here is provided once with
 * actors that look up the agent they serve through its actor system, where `createAgent` binds
 * that agent's services (its Anthropic client, tool registry, workspace, hook) before starting.
 */
import {
  type AnyEventObject,
  type CallbackLogicFunction,
  type EventObject,
  fromCallback,
} from 'xstate';
import type {
  LlmActorInput,
  PostToolsHookInput,
  RetryTimerInput,
  ToolActorInput,
} from '../machine/actorInputs.js';
import { type AgentMachine, agentMachine } from '../machine/agentMachine.js';

/**
 * What one agent's invoked actors do, as callback bodies.
 *
 * @example
 * const services: AgentServices = { llm: llmCallback(o), tool: toolCallback(o), postToolsHook, retryTimer };
 */
export interface AgentServices {
  llm: CallbackLogicFunction<EventObject, AnyEventObject, LlmActorInput>;
  tool: CallbackLogicFunction<EventObject, AnyEventObject, ToolActorInput>;
  postToolsHook: CallbackLogicFunction<EventObject, AnyEventObject, PostToolsHookInput>;
  retryTimer: CallbackLogicFunction<EventObject, AnyEventObject, RetryTimerInput>;
}

const servicesBySystem = new WeakMap<object, AgentServices>();

/**
 * Binds an agent's services to its actor system (call it before `actor.start()`).
 *
 * @example
 * const actor = createActor(sharedAgentMachine(), { input });
 * bindAgentServices(actor.system, services);
 * actor.start();
 */
export function bindAgentServices(system: object, services: AgentServices): void {
  servicesBySystem.set(system, services);
}

function delegate<Key extends keyof AgentServices>(key: Key) {
  type Input = Parameters<AgentServices[Key]>[0]['input'];
  return fromCallback<EventObject, Input>((params) => {
    const services = servicesBySystem.get(params.system);
    if (services === undefined) {
      throw new Error(
        `no '${key}' service is bound to this agent; start agents of the shared machine with createAgent`,
      );
    }
    return (services[key] as CallbackLogicFunction<EventObject, AnyEventObject, Input>)(params);
  });
}

let shared: AgentMachine | undefined;

/**
 * The agent machine with delegating actors, made on first use and shared from then on.
 *
 * @example
 * const machine = sharedAgentMachine();
 */
export function sharedAgentMachine(): AgentMachine {
  shared ??= agentMachine.provide({
    actors: {
      llm: delegate('llm'),
      tool: delegate('tool'),
      postToolsHook: delegate('postToolsHook'),
      retryTimer: delegate('retryTimer'),
    },
  });
  return shared;
}
