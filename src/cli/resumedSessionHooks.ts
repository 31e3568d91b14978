/**
 * The rule for the hooks of a resumed `run --session`: it runs with exactly the hooks it was
 * created with. Its log holds the hooks' answers, and it is read back (`sessions show`,
 * `inspect --session`, the next resume) with the chart waiting for those hooks and no others; a
 * hook dropped or added on the way would have the live session go on differently from how its log
 * is read back.
 */
import { AgentStatechartError, type HookSwitches } from '../machine/index.js';
import type { HooksModule } from './hooksModule.js';
import { hookNames } from './sessionConfig.js';

/**
 * Refuses, with `INVALID_OPTION` and what to pass instead, a resume of session `sessionId`
 * (which records the hooks `recorded`) with hooks that are not the same: none, or a module that
 * lacks one of them or has one more.
 *
 * @example
 * checkResumedSessionHooks('fix-tests', sessionHooks(header.metadata), loaded);
 */
export function checkResumedSessionHooks(
  sessionId: string,
  recorded: HookSwitches,
  given: HooksModule | undefined,
): void {
  const runs = hookNames(recorded);
  const has = given === undefined ? [] : hookNames(given.switches);
  const missing = runs.filter((name) => !has.includes(name));
  const added = has.filter((name) => !runs.includes(name));
  const keeps = `a session keeps the hooks it was created with, since its log is read back with them`;
  if (missing.length > 0 && given === undefined) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sessionId}' runs with the ${list(runs)} hook${plural(runs)}, and resuming it without them would go on differently from how its log is read back; pass --hooks MODULE with ${runs.length === 1 ? 'that hook' : 'those hooks'} (the module it was created with)`,
    );
  }
  if (missing.length > 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `--hooks ${given!.module} has no ${list(missing)} hook${plural(missing)}, which session '${sessionId}' runs with (${keeps}); pass --hooks a module with ${list(runs)}`,
    );
  }
  if (added.length > 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sessionId}' was created without the ${list(added)} hook${plural(added)} of --hooks ${given!.module} (${keeps}); start a new session (another --session NAME) to run ${added.length === 1 ? 'it' : 'them'}, or ${runs.length === 0 ? 'leave out --hooks' : `pass --hooks a module with only ${list(runs)}`}`,
    );
  }
}

function list(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!;
}

function plural(names: readonly string[]): string {
  return names.length === 1 ? '' : 's';
}
