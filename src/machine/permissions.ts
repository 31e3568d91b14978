import type { AgentContext } from './context.js';
import { findToolRule } from './toolRules.js';
import { alwaysAsks, isEditTool, isMutatingTool } from './toolSpecs.js';

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
 * deny rules (they win even in `bypassPermissions`), remembered denials, `plan` mode (refuses
 * mutating calls), tools whose spec says `alwaysAsk` (ask, in every mode), the `preToolUse`
 * hook's `ask` then its `allow`, read-only tools (always run), `bypassPermissions`, allow rules
 * and remembered approvals, `acceptEdits` for edits, and otherwise ask. A hook's `deny` never
 * gets here: the call is refused before. A rule covers a tool by its exact name, by a prefix
 * ending in `*`, or as `mcp__<server>` for every tool of that MCP server (see
 * `matchesToolRule`); remembered decisions are by exact name. Without permissions configured
 * every call runs, as in Loom, except an `alwaysAsk` tool's, or one the hook says to ask about.
 *
 * @example
 * decidePermission('bash', core.context); // { kind: 'ask' } in the default mode
 * decidePermission('bash', core.context, 'allow'); // { kind: 'allow' }: the hook allowed it
 */
export function decidePermission(
  toolName: string,
  context: Pick<AgentContext, 'permissionMode' | 'rememberedDecisions' | 'config'>,
  verdict: 'allow' | 'ask' | 'pass' = 'pass',
): PermissionDecision {
  const mode = context.permissionMode;
  const { config } = context;
  const asks = alwaysAsks(toolName, config.tools) || verdict === 'ask';
  if (mode === null && !asks) return { kind: 'allow' };
  const denyRule = findToolRule(config.deny, toolName);
  if (denyRule !== undefined) {
    return { kind: 'deny', reason: `permission denied: ${describeRule(denyRule, toolName)}` };
  }
  const remembered = context.rememberedDecisions[toolName];
  if (remembered === 'deny') {
    return { kind: 'deny', reason: `permission denied: '${toolName}' was denied earlier` };
  }
  const mutating = isMutatingTool(toolName, config.tools);
  if (mode === 'plan' && mutating) {
    return {
      kind: 'deny',
      reason: `permission denied: plan mode is read-only and '${toolName}' may change the workspace; describe the change instead`,
    };
  }
  if (asks) return { kind: 'ask' };
  if (verdict === 'allow' || !mutating) return { kind: 'allow' };
  if (mode === 'bypassPermissions') return { kind: 'allow' };
  if (remembered === 'allow' || findToolRule(config.allow, toolName) !== undefined) {
    return { kind: 'allow' };
  }
  if (mode === 'acceptEdits' && isEditTool(toolName, config.tools)) return { kind: 'allow' };
  return { kind: 'ask' };
}

/** What the model is told of the deny rule that refused its call. */
function describeRule(rule: string, toolName: string): string {
  return rule === toolName
    ? `a deny rule names '${toolName}'`
    : `the deny rule '${rule}' covers '${toolName}'`;
}
