/** The name of a guard or action given as a function, when it has a useful one. */

/**
 * A function's own name, or `fallback` for anonymous functions and the names JavaScript infers
 * from config keys (`guard`, `actions`), which say nothing about what the function does.
 *
 * @example
 * functionName(function isAdmin() { return true; }, 'inline guard'); // 'isAdmin'
 */
export function functionName(value: unknown, fallback: string): string {
  const name = (value as { name?: unknown }).name;
  if (typeof name !== 'string' || name === '' || ['guard', 'actions', 'action'].includes(name)) {
    return fallback;
  }
  return name;
}
