/**
 * What one named action of the chart does, as data: the context it changes, the child actors it
 * stops, aborts or starts, and the actions it emits. The action functions beside the chart
 * return these and the chart performs them in one place (`agentMachine.ts`), so every action is a
 * plain function of the context and the event that a test can call directly.
 */
import type { AgentAction } from './actions.js';
import type { ToolHookInput } from './actorInputs.js';
import type { AgentContext } from './context.js';
import type { AgentEvent } from './events.js';
import type { Message, ToolCall } from './messages.js';
import { blocksOf } from './transcript.js';
import type { SubagentActorInput } from './subagents.js';

/**
 * One action's effect. Performed in this order: stop, abort, context, start, subagents, hooks,
 * emit.
 *
 * @example
 * const step: ChartStep = { context: { queue: [] }, emit: [{ type: 'WaitForInput' }] };
 */
export interface ChartStep {
  /** Fields of the context that change. */
  context?: Partial<AgentContext>;
  /** Child actors to stop (tool calls by id): whatever they report later is ignored. */
  stop?: readonly string[];
  /** Tool calls to abort: their actors keep running to report how the call really ended. */
  abort?: readonly string[];
  /** Tool calls to start: one `tool` actor each, and one `ExecuteTools` naming them all. */
  start?: readonly ToolCall[];
  /** Tasks to hand to subagents: one `subagent` actor and one `StartSubagent` each. */
  subagents?: readonly SubagentActorInput[];
  /** Hooks to run on calls: one `hook` actor each, and the action that asks for it. */
  hooks?: readonly ToolHookInput[];
  emit?: readonly AgentAction[];
}

/** An action of the chart as a plain function. */
export type ChartAction = (context: AgentContext, event: AgentEvent) => ChartStep;

/**
 * The transcript with `message` appended: a new array, so no snapshot's transcript changes.
 *
 * @example
 * appended(context, { role: 'user', content: 'hi' }).length; // context.messages.length + 1
 */
export function appended(
  context: Pick<AgentContext, 'messages'>,
  message: Message | null,
): Message[] {
  return message === null ? context.messages : [...context.messages, message];
}

/**
 * `message` with `text` after what it says, as a block of its own.
 *
 * @example
 * withText({ role: 'user', content: 'hi' }, 'a note');
 * // { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'a note' }] }
 */
export function withText(message: Message, text: string): Message {
  return { ...message, content: [...blocksOf(message), { type: 'text', text }] };
}

/**
 * The transcript with `text` from the user at its end: in the last message when that is the
 * user's (tool results, say), since the API takes one user message between the model's.
 *
 * @example
 * appendedUserText(context, 'go on').at(-1)?.role; // 'user'
 */
export function appendedUserText(context: Pick<AgentContext, 'messages'>, text: string): Message[] {
  const last = context.messages.at(-1);
  if (last?.role !== 'user') return appended(context, { role: 'user', content: text });
  return [...context.messages.slice(0, -1), withText(last, text)];
}
