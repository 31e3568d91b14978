/**
 * The configuration a session of the command line runs with, kept in its header: a log holds
 * only what came from outside the chart, so whoever reads it back (`sessions show`,
 * `inspect --session`) replays it through the chart configured as it was — the built-in tools and
 * the permission mode the session started in.
 */
import { createBuiltinTools, createToolRegistry } from '../actors/index.js';
import { type AgentConfig, PERMISSION_MODES, type PermissionMode } from '../machine/index.js';

/** Marks a session created by this command line. */
const CREATED_BY = 'agent-statechart';

/**
 * The metadata the command line stores with a session it creates.
 *
 * @example
 * createAgent({ store, sessionId, sessionMetadata: cliSessionMetadata('/repo', 'default') });
 */
export function cliSessionMetadata(
  workspace: string,
  mode: PermissionMode,
): Record<string, unknown> {
  return { createdBy: CREATED_BY, workspace, mode };
}

/**
 * The chart configuration to read a session back with: the built-in tools, and the permission
 * mode its metadata names (`default` when it names none: a session created elsewhere).
 *
 * @example
 * const config = cliChartConfig(header.metadata);
 */
export function cliChartConfig(metadata: Record<string, unknown> | undefined): AgentConfig {
  const named = metadata?.mode;
  const mode: PermissionMode = (PERMISSION_MODES as readonly unknown[]).includes(named)
    ? (named as PermissionMode)
    : 'default';
  return { tools: createToolRegistry(createBuiltinTools()).specs(), permissions: { mode } };
}
