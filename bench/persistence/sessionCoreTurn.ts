/**
 * The durable turn in pure mode, as a caller that runs its own loop drives it: every event
 * through `SessionCore.handleEvent` (recorded before its actions come back), every side effect's
 * start through `started` before it would start. The model and the tool are instant: what is
 * left is the chart and what it writes.
 */
import type { AgentAction, AgentEvent, SessionCore } from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';

function expectAction<Type extends AgentAction['type']>(
  actions: readonly AgentAction[],
  type: Type,
  after: string,
): Extract<AgentAction, { type: Type }> {
  const action = actions.find((entry) => entry.type === type);
  if (action === undefined) {
    const got = actions.map((entry) => entry.type).join(', ') || 'nothing';
    throw new Error(`durable turn: after ${after} expected ${type}, got ${got}`);
  }
  return action as Extract<AgentAction, { type: Type }>;
}

/**
 * Runs one turn: UserInput → model call → response with a tool call → the tool → model call →
 * final response. A turn without tool calls in its first response (the short exchange that pads
 * a history to an even size) ends there.
 */
export async function runDurableTurn(session: SessionCore, script: TurnScript): Promise<void> {
  const feed = (event: AgentEvent) => session.handleEvent(event);
  expectAction(await feed({ type: 'UserInput', message: script.user }), 'SendLlmRequest', 'input');
  await session.started({ effect: 'llm' });
  let actions = await feed({ type: 'LlmCompleted', response: script.firstResponse });
  if (script.toolResults.length === 0) {
    expectAction(actions, 'WaitForInput', 'an answer');
    return;
  }
  const { calls } = expectAction(actions, 'ExecuteTools', 'a response with a tool call');
  for (const call of calls) {
    await session.started({ effect: 'tool', callId: call.id, name: call.name, mutating: false });
  }
  for (const result of script.toolResults) actions = await feed(result);
  expectAction(actions, 'SendLlmRequest', 'the tool results');
  await session.started({ effect: 'llm' });
  actions = await feed({ type: 'LlmCompleted', response: script.secondResponse });
  expectAction(actions, 'WaitForInput', 'the final response');
}
