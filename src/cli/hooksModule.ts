/**
 * The hooks `run --hooks MODULE` runs: a module of the user's whose `hooks` export (or, without
 * one, its default export) is an object of hook functions, the `hooks` `createAgent` takes. It is
 * loaded, and checked, before anything starts, so a typo costs no model call.
 */
import { type AgentHooks, hookSwitches } from '../actors/index.js';
import { importModule } from '../diagram/index.js';
import { AgentStatechartError, errorMessage, type HookSwitches } from '../machine/index.js';

/**
 * A loaded hooks module: its name as given, its hooks, and which of them it has.
 *
 * @example
 * const loaded: HooksModule = { module: './hooks.mjs', hooks, switches: { userPromptSubmit: true, preCompact: false, preToolUse: false, postToolUse: false, stop: false } };
 */
export interface HooksModule {
  /** The module as `--hooks` named it, for messages. */
  module: string;
  hooks: AgentHooks;
  switches: Required<HookSwitches>;
}

/**
 * Imports `module` (relative to `cwd`; see `importModule` for what loads) and takes its `hooks`
 * export, else its default export. Refused with `MODULE_NOT_LOADED` when it cannot be imported,
 * `EXPORT_NOT_FOUND` when it exports neither, and `INVALID_OPTION` when what it exports is not an
 * object of hook functions (or `timeoutMs` is not a positive number).
 *
 * @example
 * // hooks.mjs: export const hooks = {
 * //   userPromptSubmit: ({ text }) => (/secret/.test(text) ? { decision: 'block' } : undefined),
 * //   preCompact: () => ({ instructions: 'Keep every file path.' }),
 * // };
 * const { hooks, switches } = await loadHooksModule('./hooks.mjs', process.cwd());
 * createAgent({ hooks });
 */
export async function loadHooksModule(
  module: string,
  cwd: string,
  timeoutMs?: number,
): Promise<HooksModule> {
  const namespace = await importModule(module, cwd);
  const exportName = namespace.hooks !== undefined ? 'hooks' : 'default';
  const hooks = namespace[exportName];
  if (hooks === undefined) {
    const names = Object.keys(namespace).sort();
    throw new AgentStatechartError(
      'EXPORT_NOT_FOUND',
      `'${module}' exports no hooks (${names.length > 0 ? `it exports ${names.join(', ')}` : 'it exports nothing'}); export them as 'hooks' or as the default export, for example: export const hooks = { userPromptSubmit: ({ text }) => undefined, stop: () => undefined }`,
    );
  }
  let switches: Required<HookSwitches> | undefined;
  try {
    switches = hookSwitches(hooks as AgentHooks, timeoutMs);
  } catch (error) {
    // The check's own message names the fix; say which module and export it is about.
    if (error instanceof AgentStatechartError && error.code === 'INVALID_OPTION') {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `the '${exportName}' export of '${module}' cannot be used as hooks: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    throw error;
  }
  // Not undefined: `hooks` was checked to be there.
  return { module, hooks: hooks as AgentHooks, switches: switches! };
}
