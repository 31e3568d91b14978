import type { AgentContext } from './context.js';
import { isEditTool, isMutatingTool } from './toolSpecs.js';

/**
 * What the permissions say about one tool call.
 *
 * @example
 * const decision: PermissionDecision = { kind: 'deny', reason: 'plan mode is read-only' };
 */
export type PermissionDecision =
  { kind: 'allow' } | { kind: 'ask' } | { kind: 'deny'; reason: string };

/**
 * Decides whether a tool call runs, waits for a person, or is refused. In order:
 * deny rules (they win even in `bypassPermissions`), remembered denials, read-only tools (always
 * run), `plan` mode (refuses mutating calls), `bypassPermissions`, allow rules and remembered
 * approvals, `acceptEdits` for edits, and otherwise ask. Without permissions configured every
 * call runs, as in Loom.
 *
 * @example
 * decidePermission('bash', core.context); // { kind: 'ask' } in the default mode
 */
export function decidePermission(
  toolName: string,
  context: Pick<AgentContext, 'permissionMode' | 'rememberedDecisions' | 'config'>,
): PermissionDecision {
  const mode = context.permissionMode;
  if (mode === null) return { kind: 'allow' };
  const { config } = context;
  if (config.deny.includes(toolName)) {
    return { kind: 'deny', reason: `permission denied: a deny rule names '${toolName}'` };
  }
  const remembered = context.rememberedDecisions[toolName];
  if (remembered === 'deny') {
    return { kind: 'deny', reason: `permission denied: '${toolName}' was denied earlier` };
  }
  if (!isMutatingTool(toolName, config.tools)) return { kind: 'allow' };
  if (mode === 'plan') {
    return {
      kind: 'deny',
      reason: `permission denied: plan mode is read-only and '${toolName}' may change the workspace; describe the change instead`,
    };
  }
  if (mode === 'bypassPermissions') return { kind: 'allow' };
  if (remembered === 'allow' || config.allow.includes(toolName)) return { kind: 'allow' };
  if (mode === 'acceptEdits' && isEditTool(toolName, config.tools)) return { kind: 'allow' };
  return { kind: 'ask' };
}
