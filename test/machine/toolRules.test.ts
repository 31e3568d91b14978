/**
 * Permission rules that name many tools, as the Claude Agent SDK writes them for MCP tools: a
 * prefix ending in `*`, and `mcp__<server>` for every tool of a server. Exact names work as
 * before, and deny rules still win over everything.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  AgentCore,
  AgentStatechartError,
  type PermissionConfig,
  type ToolSpec,
} from '../../src/index.js';
import { matchesToolRule } from '../../src/machine/index.js';
import { call, userInput } from '../support/events.js';
import { afterResponse } from './afterResponse.js';

describe('matchesToolRule', () => {
  it.each<[string, string, boolean]>([
    // Exact names, as before.
    ['bash', 'bash', true],
    ['bash', 'bash_history', false],
    ['read_file', 'bash', false],
    // A prefix ending in *.
    ['mcp__github__*', 'mcp__github__create_issue', true],
    ['mcp__github__*', 'mcp__github__', true],
    ['mcp__github__*', 'mcp__gitlab__create_issue', false],
    ['mcp__github__get_*', 'mcp__github__get_issue', true],
    ['mcp__github__get_*', 'mcp__github__create_issue', false],
    ['mcp__*', 'mcp__slack__post', true],
    ['mcp__*', 'read_file', false],
    ['*', 'anything', true],
    // Every tool of a server.
    ['mcp__github', 'mcp__github__create_issue', true],
    ['mcp__github', 'mcp__github', true],
    ['mcp__github', 'mcp__github_enterprise__create_issue', false],
    ['mcp__github', 'mcp__githubx__create_issue', false],
    ['mcp__my-server_2', 'mcp__my-server_2__run', true],
    // Not the server form: three parts, or a trailing __, name one tool.
    ['mcp__github__create_issue', 'mcp__github__create_issue__v2', false],
    ['mcp__github__', 'mcp__github__create_issue', false],
    ['mcp__', 'mcp____x', false],
    // Only mcp__ names a server.
    ['github', 'github__create_issue', false],
  ])('%s covers %s: %s', (rule, toolName, expected) => {
    expect(matchesToolRule(rule, toolName)).toBe(expected);
  });
});

const tools: ToolSpec[] = [
  { name: 'read_file', mutating: false },
  { name: 'bash', mutating: true },
  { name: 'mcp__github__get_issue', mutating: true },
  { name: 'mcp__github__create_issue', mutating: true },
  { name: 'mcp__github_enterprise__get_issue', mutating: true },
  { name: 'mcp__slack__post', mutating: true },
];

/** What happens to one call of `toolName` under `permissions`: it runs, asks or is denied. */
function fate(permissions: PermissionConfig, toolName: string): string {
  const config: AgentConfig = { tools, permissions };
  const core = new AgentCore(config);
  core.handleEvent(userInput('go'));
  const [first] = afterResponse(core, [call('t1', toolName)]);
  if (first?.type === 'ExecuteTools') return 'runs';
  if (first?.type === 'RequestApproval') return 'asks';
  const outcome = core.context.toolRuns[0]?.outcome;
  return outcome?.status === 'error' ? outcome.error.message : JSON.stringify(first);
}

/** What happens to a call of each tool of `expected` under `permissions`, by tool name. */
function fatesOf(permissions: PermissionConfig, expected: Record<string, string>) {
  return Object.fromEntries(Object.keys(expected).map((name) => [name, fate(permissions, name)]));
}

const denied = (rule: string, toolName: string) =>
  `permission denied: the deny rule '${rule}' covers '${toolName}'`;

describe('permission rules', () => {
  it.each<[string, PermissionConfig, Record<string, string>]>([
    [
      'an allow prefix lets every tool it covers run without asking, and no other',
      { mode: 'default', allow: ['mcp__github__get_*'] },
      {
        mcp__github__get_issue: 'runs',
        mcp__github__create_issue: 'asks',
        mcp__github_enterprise__get_issue: 'asks',
      },
    ],
    [
      'an allow rule for a server lets every tool of it run without asking, no other server’s',
      { mode: 'default', allow: ['mcp__github'] },
      {
        mcp__github__get_issue: 'runs',
        mcp__github__create_issue: 'runs',
        mcp__github_enterprise__get_issue: 'asks',
        mcp__slack__post: 'asks',
      },
    ],
    [
      'an allow rule still works by exact name',
      { mode: 'default', allow: ['bash'] },
      { bash: 'runs', mcp__slack__post: 'asks' },
    ],
    [
      'a deny prefix refuses every tool it covers, even in bypassPermissions',
      { mode: 'bypassPermissions', deny: ['mcp__github__create_*'] },
      {
        mcp__github__create_issue: denied('mcp__github__create_*', 'mcp__github__create_issue'),
        mcp__github__get_issue: 'runs',
      },
    ],
    [
      'a deny rule for a server refuses its tools in bypassPermissions, over an allow rule',
      { mode: 'bypassPermissions', allow: ['mcp__github__get_issue'], deny: ['mcp__github'] },
      {
        mcp__github__get_issue: denied('mcp__github', 'mcp__github__get_issue'),
        mcp__github_enterprise__get_issue: 'runs',
      },
    ],
    [
      'a deny rule * refuses every tool, read-only ones too',
      { mode: 'bypassPermissions', deny: ['*'] },
      { read_file: denied('*', 'read_file'), bash: denied('*', 'bash') },
    ],
    [
      'a deny rule still says which tool its exact name names',
      { mode: 'bypassPermissions', deny: ['bash'] },
      { bash: "permission denied: a deny rule names 'bash'", mcp__slack__post: 'runs' },
    ],
  ])('%s', (_title, permissions, expected) => {
    expect(fatesOf(permissions, expected)).toEqual(expected);
  });
});

describe('rules in the config', () => {
  it.each<[string, PermissionConfig, string]>([
    [
      'an allow rule * alone',
      { mode: 'default', allow: ['read_file', '*'] },
      "permissions.allow rule '*' would allow every tool; to run every tool without asking, use permissions: { mode: 'bypassPermissions' } (deny rules still apply)",
    ],
    [
      'an allow rule with a * inside',
      { mode: 'default', allow: ['mcp__*__get_issue'] },
      "permissions.allow rule 'mcp__*__get_issue' has a * before its end; a rule is a tool name ('read_file'), a prefix ending in * ('mcp__github__*') or an MCP server ('mcp__github')",
    ],
    [
      'a deny rule with a * first',
      { mode: 'default', deny: ['*_file'] },
      "permissions.deny rule '*_file' has a * before its end; a rule is a tool name ('read_file'), a prefix ending in * ('mcp__github__*') or an MCP server ('mcp__github')",
    ],
    [
      'a deny rule with two stars',
      { mode: 'default', deny: ['mcp__**'] },
      "permissions.deny rule 'mcp__**' has a * before its end; a rule is a tool name ('read_file'), a prefix ending in * ('mcp__github__*') or an MCP server ('mcp__github')",
    ],
  ])('refuse %s', (_name, permissions, message) => {
    const make = () => new AgentCore({ permissions });
    expect(make).toThrow(AgentStatechartError);
    expect(make).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', message }));
  });

  it('take a deny rule * alone, prefixes and server rules', () => {
    expect(
      () =>
        new AgentCore({
          permissions: { mode: 'default', allow: ['mcp__github', 'mcp__docs__*'], deny: ['*'] },
        }),
    ).not.toThrow();
  });
});
