/**
 * Whether a tool's shell commands run in an OS sandbox, and what they do when they cannot: the
 * built-in `bash` carries it as `tool.sandbox`, and `createAgent` reports it as `agent.sandbox`.
 *
 * - `{ active: true }`: every command runs confined (see `SandboxOptions`).
 * - `{ active: false, commands: 'unconfined' }`: commands run with the agent's own rights, the
 *   permission rules alone guarding them (`bypassPermissions` runs them without asking); each
 *   result says it ran without a sandbox. `reason` says why: none can start here, or
 *   `sandbox: false` turned it off.
 * - `{ active: false, commands: 'refused' }`: `sandbox: 'required'` and none can start: every
 *   command is refused with a tool error the model reads, and nothing runs.
 *
 * @example
 * const agent = createAgent({ workspace: '/srv/repo' });
 * if (!agent.sandbox?.active) log.warn(`shell commands are not sandboxed: ${agent.sandbox?.reason}`);
 */
export type SandboxStatus =
  | { readonly active: true }
  | {
      readonly active: false;
      readonly reason: string;
      readonly commands: 'unconfined' | 'refused';
    };
