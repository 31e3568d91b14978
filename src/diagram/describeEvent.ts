/** Readable text for XState's internal event types (invoke results, delays, done states). */

/**
 * How a transition is triggered: by an event, eventlessly (`always`), by a delay, or by an
 * invoked actor or a compound state finishing.
 *
 * @example
 * const trigger: TransitionTrigger = 'always';
 */
export type TransitionTrigger = 'event' | 'always' | 'after' | 'done' | 'error';

/**
 * Turns XState's internal event types into what a reader expects to see on a diagram (an
 * invoked actor named by `actorName`, which maps generated ids to source names):
 * `xstate.error.actor.llm` → `onError(llm)`, `xstate.done.actor.fetch` → `onDone(fetch)`,
 * `xstate.done.state.agent.Form` → `onDone`, `xstate.after.1000.agent.Idle` → `after 1000ms`.
 *
 * @example
 * describeEvent('xstate.error.actor.postToolsHook');
 * // { trigger: 'error', text: 'onError(postToolsHook)' }
 * describeEvent('LlmError'); // { trigger: 'event', text: 'LlmError' }
 */
export function describeEvent(
  eventType: string,
  actorName: (actorId: string) => string = (actorId) => actorId,
): { trigger: TransitionTrigger; text: string } {
  const actorDone = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (actorDone) return { trigger: 'done', text: `onDone(${actorName(actorDone[1] ?? '')})` };
  const actorError = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (actorError) return { trigger: 'error', text: `onError(${actorName(actorError[1] ?? '')})` };
  if (eventType.startsWith('xstate.done.state.')) return { trigger: 'done', text: 'onDone' };
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after) {
    const delay = after[1] ?? '';
    return { trigger: 'after', text: /^\d+$/.test(delay) ? `after ${delay}ms` : `after ${delay}` };
  }
  return { trigger: 'event', text: eventType };
}
