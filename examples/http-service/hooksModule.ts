/**
 * Hooks for the example's processes (`main.ts`, `workerMain.ts`), from a module of your own named
 * by the `AGENT_HOOKS` environment variable. A module rather than code in the example, so the
 * example folder stays copyable as it is; and a path in the environment, so that `workers.ts`,
 * which hands its environment to every worker, gives every worker the same hooks (a session may
 * be driven by any of them, and a hook asked on one worker may be asked again on another).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentHooks, HOOK_NAMES } from 'agent-statechart';

/**
 * What a hooks module exports: `hooks` (required), and `hookTimeoutMs`, how long one hook may
 * take (default 60 000).
 *
 * @example
 * // hooks.ts, run with AGENT_HOOKS=./hooks.ts
 * import type { AgentHooks } from 'agent-statechart';
 * export const hooks: AgentHooks = {
 *   userPromptSubmit: ({ text }) =>
 *     /sk-ant-/.test(text) ? { decision: 'block', reason: 'the prompt contains an API key' } : undefined,
 * };
 * export const hookTimeoutMs = 10_000;
 */
export interface HooksModule {
  hooks?: AgentHooks;
  hookTimeoutMs?: number;
}

/**
 * Imports the hooks module at `path` (relative to the working directory); nothing when `path` is
 * unset or empty. Rejects, naming the module and what to export, when it cannot be imported or
 * exports no `hooks` object. (Whether each hook is a function is checked where the hooks are
 * given: `createAgent` and `startSessionWorker` refuse anything else with `INVALID_OPTION`.)
 *
 * @example
 * const worker = await startSessionWorker({ ...options, ...(await loadHooks(process.env.AGENT_HOOKS)) });
 */
export async function loadHooks(path: string | undefined): Promise<HooksModule> {
  if (path === undefined || path === '') return {};
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `AGENT_HOOKS=${path}: the module could not be imported: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const { hooks, hookTimeoutMs } = loaded;
  if (typeof hooks !== 'object' || hooks === null) {
    throw new Error(
      `AGENT_HOOKS=${path}: the module must export \`hooks\`, an object of hook functions ` +
        `(${HOOK_NAMES.join(', ')}; see AgentHooks)`,
    );
  }
  if (hookTimeoutMs !== undefined && typeof hookTimeoutMs !== 'number') {
    throw new Error(
      `AGENT_HOOKS=${path}: \`hookTimeoutMs\`, if exported, must be a number of milliseconds`,
    );
  }
  return {
    hooks,
    ...(hookTimeoutMs === undefined ? {} : { hookTimeoutMs }),
  };
}
