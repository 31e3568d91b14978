/**
 * What the hooks on a turn run on, read from the context: the chart's `hook` actor gets it as
 * input, and pure mode's `RunUserPromptSubmitHook` and `RunStopHook` actions carry the same.
 */
import type { PreCompactHookInput, TurnHookInput } from './actorInputs.js';
import { compactionSplit } from './compaction.js';
import type { AgentContext } from './context.js';
import type { Message } from './messages.js';

/**
 * The `userPromptSubmit` hook runs on the prompt held at the head of the queue.
 *
 * @example
 * promptHookInput(core.context); // { hook: 'userPromptSubmit', prompt: core.context.queue[0] }
 */
export function promptHookInput(
  context: Pick<AgentContext, 'queue'>,
): Extract<TurnHookInput, { hook: 'userPromptSubmit' }> {
  return { hook: 'userPromptSubmit', prompt: context.queue[0] ?? { role: 'user', content: '' } };
}

/**
 * The `stop` hook runs on the response that would end the turn: the model's message at the end
 * of the transcript, or `null` when the response had no content (an empty one is not kept).
 *
 * @example
 * stopHookInput(core.context).response?.role; // 'assistant'
 */
export function stopHookInput(
  context: Pick<AgentContext, 'messages'>,
): Extract<TurnHookInput, { hook: 'stop' }> {
  const last: Message | undefined = context.messages.at(-1);
  return { hook: 'stop', response: last?.role === 'assistant' ? last : null };
}

/**
 * The `preCompact` hook runs on the compaction about to start: why, how many messages its summary
 * would replace, and the instructions it has so far.
 *
 * @example
 * preCompactHookInput(core.context); // { hook: 'preCompact', trigger: 'auto', summarised: 212, instructions: [] }
 */
export function preCompactHookInput(context: AgentContext): PreCompactHookInput {
  const compacting = context.window.compacting;
  return {
    hook: 'preCompact',
    trigger: compacting?.trigger ?? 'auto',
    summarised: compactionSplit(context) ?? 0,
    instructions: compacting?.instructions ?? [],
  };
}
