/** Readable names for actions: named, built-in action creators, inline functions. */
import { functionName } from './functionName.js';

/**
 * Describes one action of a transition, entry or exit: its name, the built-in action creator it
 * comes from (`assign`, `raise`, `emit`, …) or the name of an inline function.
 *
 * @example
 * describeAction('recordRetryableError'); // 'recordRetryableError'
 * describeAction(assign({ count: 1 })); // 'assign'
 */
export function describeAction(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'function' || (typeof action === 'object' && action !== null)) {
    const type = (action as { type?: unknown }).type;
    if (typeof type === 'string') return type.startsWith('xstate.') ? type.slice(7) : type;
  }
  if (typeof action === 'function') return functionName(action, 'inline action');
  return 'action';
}
