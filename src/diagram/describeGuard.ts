/** Readable text for a transition's guard, including XState's `and` / `or` / `not` combinators. */
import { and, not, or } from 'xstate';
import { functionName } from './functionName.js';

/** The check functions of XState's guard combinators, to recognise them without relying on names. */
const combinatorChecks = new Map<unknown, 'and' | 'or' | 'not'>([
  [checkOf(and([])), 'and'],
  [checkOf(or([])), 'or'],
  [checkOf(not('_')), 'not'],
]);

function checkOf(guard: unknown): unknown {
  return (guard as { check?: unknown }).check;
}

function combinatorOf(guard: object): 'and' | 'or' | 'not' | null {
  const known = combinatorChecks.get(checkOf(guard));
  if (known !== undefined) return known;
  // A machine built with another copy of xstate has other check functions; fall back to names.
  const name = (guard as { name?: unknown }).name;
  return name === 'and' || name === 'or' || name === 'not' ? name : null;
}

/**
 * Describes a transition's guard: `retryableError && attemptsLeft`, `!isIdle`, `a || (b && c)`;
 * `null` when the transition has none.
 *
 * @example
 * describeGuard(and(['retryableError', 'attemptsLeft'])); // 'retryableError && attemptsLeft'
 * describeGuard({ type: 'isAdmin', params: { role: 'owner' } }); // 'isAdmin'
 */
export function describeGuard(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  return guardText(guard, false);
}

function guardText(guard: unknown, nested: boolean): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const combinator = combinatorOf(guard);
    const parts = (guard as { guards?: unknown }).guards;
    if (combinator !== null && Array.isArray(parts)) {
      if (combinator === 'not') return `!${guardText(parts[0], true)}`;
      const text = parts
        .map((part) => guardText(part, true))
        .join(combinator === 'and' ? ' && ' : ' || ');
      // Parentheses only where precedence would otherwise be ambiguous to a reader.
      return nested && parts.length > 1 ? `(${text})` : text;
    }
    return functionName(guard, 'inline guard');
  }
  if (typeof guard === 'object') {
    const type = (guard as { type?: unknown }).type;
    if (typeof type === 'string') return type;
  }
  return 'guard';
}
