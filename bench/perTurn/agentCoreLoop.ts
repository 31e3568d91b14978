/**
 * The package in pure mode as a per-turn subject: `AgentCore.handleEvent` for every event, each
 * streamed delta included, the caller performing `DisplayMessage`. Pure mode needs no actors, so
 * it runs the turn with nothing stood in for the package.
 */
import { type AgentAction, AgentCore, type AgentEvent, type Message } from '../../src/index.js';
import { TOOL_SPECS } from './conversation.js';
import type { LoopSubject } from './loopSubject.js';

export function agentCoreSubject(prior: readonly Message[]): LoopSubject & { core: AgentCore } {
  const core = new AgentCore({ tools: TOOL_SPECS }, { messages: prior as Message[] });
  let textSeen = 0;
  const deliver = (event: AgentEvent): void => {
    const actions: AgentAction[] = core.handleEvent(event);
    for (const action of actions) {
      if (action.type === 'DisplayMessage') textSeen += action.text.length;
    }
  };
  return {
    core,
    deliver,
    deliverTick(deltas) {
      for (const delta of deltas) deliver(delta);
    },
    get state() {
      return core.state;
    },
    get messageCount() {
      return core.context.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}
