import type { ToolRun } from './context.js';

/**
 * The paths the successful calls of a response reported changing (`ToolOutcome.changedPaths`),
 * in call order, each once: what the `postToolsHook` actor gets as `changedPaths`. A pure-mode
 * caller running the hook itself reads them the same way.
 *
 * @example
 * changedPathsOf(core.context.toolRuns); // ['notes.md', 'src/new.ts']
 */
export function changedPathsOf(runs: readonly ToolRun[]): string[] {
  const paths = new Set<string>();
  for (const run of runs) {
    if (run.outcome?.status !== 'success') continue;
    for (const path of run.outcome.changedPaths ?? []) paths.add(path);
  }
  return [...paths];
}
