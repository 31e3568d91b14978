/**
 * Permission rules that name tools: an exact name, a prefix, or every tool of an MCP server,
 * written as the Claude Agent SDK writes them (MCP tools are named `mcp__<server>__<tool>`).
 * Every place that matches a rule against a tool name, and every check of a rule, is here.
 */
import { clip } from './plainJson.js';

/** What a rule that covers every tool of an MCP server looks like: `mcp__<server>`. */
const MCP_SERVER_RULE = /^mcp__(?:(?!__).)+$/;

/**
 * Whether a permission rule (an entry of `permissions.allow` or `permissions.deny`) covers a
 * tool: a rule ending in `*` covers every name that starts with what comes before it; a rule
 * `mcp__<server>` (two parts, no trailing `__`) covers every tool of that MCP server, the names
 * that start with `mcp__<server>__`; any other rule covers the tool of exactly that name.
 *
 * @example
 * matchesToolRule('bash', 'bash'); // true
 * matchesToolRule('mcp__github__*', 'mcp__github__create_issue'); // true
 * matchesToolRule('mcp__github', 'mcp__github__create_issue'); // true
 * matchesToolRule('mcp__github', 'mcp__github_enterprise__create_issue'); // false
 */
export function matchesToolRule(rule: string, toolName: string): boolean {
  if (rule === toolName) return true;
  if (rule.endsWith('*')) return toolName.startsWith(rule.slice(0, -1));
  return MCP_SERVER_RULE.test(rule) && toolName.startsWith(`${rule}__`);
}

/**
 * The first of `rules` that covers `toolName`, or `undefined`.
 *
 * @example
 * findToolRule(['read_file', 'mcp__github'], 'mcp__github__list_issues'); // 'mcp__github'
 */
export function findToolRule(rules: readonly string[], toolName: string): string | undefined {
  return rules.find((rule) => matchesToolRule(rule, toolName));
}

/**
 * What is wrong with a rule of `permissions[list]`, or `null`: a `*` anywhere but at the end
 * (it would match nothing, silently), and an allow rule `*` alone, which would let every tool
 * run without asking while the mode still says otherwise: that is the `bypassPermissions` mode.
 * A deny rule `*` is fine: it refuses every tool.
 *
 * @example
 * toolRuleProblem('allow', '*'); // "permissions.allow rule '*' would allow every tool; …"
 * toolRuleProblem('deny', 'mcp__github__*'); // null
 */
export function toolRuleProblem(list: 'allow' | 'deny', rule: string): string | null {
  const star = rule.indexOf('*');
  if (star !== -1 && star !== rule.length - 1) {
    return `permissions.${list} rule '${clip(rule)}' has a * before its end; a rule is a tool name ('read_file'), a prefix ending in * ('mcp__github__*') or an MCP server ('mcp__github')`;
  }
  if (list === 'allow' && rule === '*') {
    return "permissions.allow rule '*' would allow every tool; to run every tool without asking, use permissions: { mode: 'bypassPermissions' } (deny rules still apply)";
  }
  return null;
}
