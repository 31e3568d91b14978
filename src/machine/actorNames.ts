/**
 * The chart's invoked actors by name.
 */

/** The names of the chart's invoked actors, as `machine.provide({ actors })` takes them. */
export const AGENT_ACTOR_NAMES = [
  'llm',
  'tool',
  'postToolsHook',
  'retryTimer',
  'toolGraceTimer',
  'hook',
  'subagent',
] as const;

/** One of {@link AGENT_ACTOR_NAMES}. */
export type AgentActorName = (typeof AGENT_ACTOR_NAMES)[number];

/**
 * The id of the actor that runs a call's hook: beside the call's own actor (named by the call
 * id), never the same.
 *
 * @example
 * hookActorId('toolu_1'); // 'toolu_1#hook'
 */
export function hookActorId(callId: string): string {
  return `${callId}#hook`;
}
