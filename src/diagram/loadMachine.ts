/**
 * Finds the machine a `--machine MODULE:EXPORT` option names: imports the module (a path to a
 * `.js`/`.mjs` file, a `.ts` file when running under tsx, or a package name) and checks that the
 * export really is an XState v5 machine. The import itself ({@link importModule}) is shared with
 * the other options that name a module of the user's (`run --hooks`).
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { AgentStatechartError, errorMessage } from '../machine/index.js';

/**
 * Loads `MODULE:EXPORT` (or `MODULE`, meaning its default export). Relative paths resolve
 * against `cwd`.
 *
 * @example
 * const machine = await loadMachine('./dist/checkout.js:checkoutMachine');
 * console.log(toMermaid(machine));
 */
export async function loadMachine(
  spec: string,
  cwd: string = process.cwd(),
): Promise<AnyStateMachine> {
  const { module, exportName } = parseMachineSpec(spec);
  const namespace = await importModule(module, cwd);
  if (!(exportName in namespace)) {
    const machines = Object.keys(namespace)
      .filter((name) => isStateMachine(namespace[name]))
      .sort();
    const offer =
      machines.length > 0
        ? `machines it exports: ${machines.join(', ')}`
        : 'it exports no XState machine';
    throw new AgentStatechartError(
      'EXPORT_NOT_FOUND',
      `'${module}' has no export '${exportName}'; ${offer}`,
    );
  }
  const value = namespace[exportName];
  if (!isStateMachine(value)) {
    throw new AgentStatechartError(
      'NOT_A_MACHINE',
      `'${module}' export '${exportName}' is ${describe(value)}, not an XState v5 machine (made with createMachine or setup(…).createMachine)`,
    );
  }
  return value;
}

/**
 * Imports a module of the user's and answers its exports: `module` is a path to a `.js`/`.mjs`
 * file (relative paths resolve against `cwd`, not against this package), a `.ts` file when the
 * command runs under tsx, a `file:` URL, or a package name. A module that cannot be found, or
 * throws while it loads, is `MODULE_NOT_LOADED`, with what to do about a `.ts` file.
 *
 * @example
 * const exports = await importModule('./hooks.mjs', process.cwd());
 * exports.default; // the module's default export, if it has one
 */
export async function importModule(
  module: string,
  cwd: string = process.cwd(),
): Promise<Record<string, unknown>> {
  const url =
    isPathLike(module) && !module.startsWith('file:')
      ? pathToFileURL(isAbsolute(module) ? module : resolve(cwd, module)).href
      : module;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    // Node cannot import TypeScript by itself: say how to run the command so that it can.
    const hint = /\.[cm]?tsx?$/.test(module)
      ? " (a .ts module loads only with tsx: NODE_OPTIONS='--import tsx' npx agent-statechart …, or compile it to .js first)"
      : '';
    throw new AgentStatechartError(
      'MODULE_NOT_LOADED',
      `could not load '${module}': ${errorMessage(error)}${hint}`,
      { cause: error },
    );
  }
}

/**
 * Splits `MODULE:EXPORT` into its parts; without `:EXPORT` the default export is meant. A colon
 * followed by a path separator belongs to the path (`C:\machines\a.js`).
 *
 * @example
 * parseMachineSpec('./src/checkout.ts:checkoutMachine');
 * // { module: './src/checkout.ts', exportName: 'checkoutMachine' }
 */
export function parseMachineSpec(spec: string): { module: string; exportName: string } {
  const colon = spec.lastIndexOf(':');
  const tail = colon === -1 ? '' : spec.slice(colon + 1);
  const hasExport = colon > 0 && /^[A-Za-z_$][\w$]*$/.test(tail);
  const module = hasExport ? spec.slice(0, colon) : spec;
  if (module.trim() === '') {
    throw new AgentStatechartError(
      'INVALID_MACHINE_SPEC',
      `'${spec}' names no module; use MODULE:EXPORT, for example ./src/machine.ts:myMachine`,
    );
  }
  return { module, exportName: hasExport ? tail : 'default' };
}

/**
 * Whether `value` is an XState v5 machine. Checked by shape rather than `instanceof`, so a
 * machine built with another copy of xstate is still recognised.
 *
 * @example
 * isStateMachine(agentMachine); // true
 * isStateMachine({}); // false
 */
export function isStateMachine(value: unknown): value is AnyStateMachine {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { root?: unknown; getInitialSnapshot?: unknown; transition?: unknown };
  const root = candidate.root as { states?: unknown; transitions?: unknown } | undefined;
  return (
    typeof candidate.getInitialSnapshot === 'function' &&
    typeof candidate.transition === 'function' &&
    typeof root === 'object' &&
    root !== null &&
    typeof root.states === 'object' &&
    root.transitions instanceof Map
  );
}

function isPathLike(module: string): boolean {
  return (
    module.startsWith('.') ||
    isAbsolute(module) ||
    /\.[cm]?[jt]sx?$/.test(module) ||
    module.startsWith('file:')
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
