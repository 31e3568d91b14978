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
] as const;

/** One of {@link AGENT_ACTOR_NAMES}. */
export type AgentActorName = (typeof AGENT_ACTOR_NAMES)[number];
