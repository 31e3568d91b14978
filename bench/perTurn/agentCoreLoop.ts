/**
 * The package itself, in the four ways a service can run it: `createAgent` (actor mode, the
 * public handle), a bare `agentMachine` actor, and `AgentCore` (pure mode) with and without a
 * `DeltaCoalescer` in front. All start from the same transcript and the same tool specs.
 */
import { type Actor, createActor } from 'xstate';
import {
  type Agent,
  type AgentAction,
  AgentCore,
  type AgentEvent,
  type AgentMachine,
  agentMachine,
  createAgent,
  DeltaCoalescer,
  type Message,
} from '../../src/index.js';
import type { Delta } from '../fixtures/conversation.js';
import { SHARED_TOOL_SPECS, SHARED_TOOLS } from '../fixtures/tools.js';
import {
  ActorHandles,
  benchActors,
  benchCallbacks,
  type ManualTicks,
  manualTicks,
} from './benchActors.js';
import type { LoopSubject } from './loopSubject.js';

function llmOf(handles: ActorHandles) {
  if (handles.llm === null) throw new Error('no model call is running');
  return handles.llm;
}

/** Routes an event the way it reaches an actor-mode agent in production: from its child actors. */
function fromChildren(handles: ActorHandles, ticks: ManualTicks, event: AgentEvent): boolean {
  switch (event.type) {
    case 'LlmTextDelta':
    case 'LlmToolCallDelta':
      llmOf(handles).push(event);
      ticks.tick();
      return true;
    case 'LlmCompleted':
    case 'LlmError': {
      const llm = llmOf(handles);
      if (event.type === 'LlmCompleted') llm.finish();
      else llm.flush();
      llm.sendBack(event);
      return true;
    }
    case 'ToolCompleted':
    case 'ToolProgress': {
      const sendBack = handles.tools.get(event.callId);
      if (sendBack === undefined) throw new Error(`no tool actor for ${event.callId}`);
      sendBack(event);
      return true;
    }
    default:
      return false;
  }
}

function streamTick(handles: ActorHandles, ticks: ManualTicks, deltas: readonly Delta[]): void {
  const llm = llmOf(handles);
  for (const delta of deltas) llm.push(delta);
  ticks.tick();
}

/** `createAgent` with the bench actors; text reaches the listener through `agent.on('text')`. */
export function createAgentSubject(prior: readonly Message[]): LoopSubject & { agent: Agent } {
  const handles = new ActorHandles();
  const ticks = manualTicks();
  const agent = createAgent({
    tools: SHARED_TOOLS,
    autoCommit: false,
    messages: prior as Message[],
    actors: benchCallbacks(handles, ticks.schedule),
  });
  let textSeen = 0;
  agent.on('text', ({ text }) => {
    textSeen += text.length;
  });
  return {
    agent,
    deliver(event) {
      if (fromChildren(handles, ticks, event)) return;
      if (event.type === 'UserInput') agent.send(event.message);
      else agent.dispatch(event);
    },
    deliverTick: (deltas) => streamTick(handles, ticks, deltas),
    endStream: () => llmOf(handles).finish(),
    get state() {
      return agent.state;
    },
    transcript: () => agent.context.messages,
    get messageCount() {
      return agent.context.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}

/** A started `agentMachine` actor with the bench actors; events go in with `actor.send`. */
export function bareActorSubject(
  prior: readonly Message[],
  options: { inspect?: boolean } = {},
): LoopSubject & {
  actor: Actor<AgentMachine>;
} {
  const handles = new ActorHandles();
  const ticks = manualTicks();
  const actor = createActor(
    agentMachine.provide({ actors: benchActors(handles, ticks.schedule) }),
    {
      input: { config: { tools: SHARED_TOOL_SPECS }, messages: prior as Message[] },
      // createAgent always installs an observer like this one (for its `state` notifications).
      ...(options.inspect ? { inspect: () => undefined } : {}),
    },
  );
  let textSeen = 0;
  actor.on('DisplayMessage', ({ text }) => {
    textSeen += text.length;
  });
  actor.start();
  return {
    actor,
    deliver: (event) => actor.send(event),
    deliverTick: (deltas) => streamTick(handles, ticks, deltas),
    endStream: () => llmOf(handles).finish(),
    get state() {
      return actor.getSnapshot().value;
    },
    transcript: () => actor.getSnapshot().context.messages,
    get messageCount() {
      return actor.getSnapshot().context.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}

/** Pure mode: `handleEvent` for every event; the caller performs `DisplayMessage`. */
export function agentCoreSubject(
  prior: readonly Message[],
  options: { coalesce?: boolean } = {},
): LoopSubject & { core: AgentCore } {
  const core = new AgentCore({ tools: SHARED_TOOL_SPECS }, { messages: prior as Message[] });
  let textSeen = 0;
  const perform = (actions: AgentAction[]): void => {
    for (const action of actions)
      if (action.type === 'DisplayMessage') textSeen += action.text.length;
  };
  const deliver = (event: AgentEvent): void => perform(core.handleEvent(event));
  const ticks = manualTicks();
  const coalescer = options.coalesce
    ? new DeltaCoalescer(deliver, { schedule: ticks.schedule })
    : null;
  return {
    core,
    deliver,
    deliverTick(deltas) {
      if (coalescer === null) {
        for (const delta of deltas) deliver(delta);
        return;
      }
      for (const delta of deltas) coalescer.push(delta);
      ticks.tick();
    },
    endStream: () => coalescer?.finish(),
    get state() {
      return core.state;
    },
    transcript: () => core.context.messages,
    get messageCount() {
      return core.context.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}
