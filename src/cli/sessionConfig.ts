/**
 * The configuration a session of the command line runs with, kept in its header: a log holds
 * only what came from outside the chart, so whoever reads it back (`sessions show`,
 * `inspect --session`) replays it through the chart configured as it was — the built-in tools,
 * the permission mode the session started in, and whether its model may ask the user questions.
 */
import { createBuiltinTools, createToolRegistry } from '../actors/index.js';
import { type AgentConfig, PERMISSION_MODES, type PermissionMode } from '../machine/index.js';

/** Marks a session created by this command line. */
const CREATED_BY = 'agent-statechart';

/**
 * The metadata the command line stores with a session it creates; `askUser` when the session's
 * model is offered the `ask_user` tool (`run`), which changes how the chart takes its calls.
 *
 * @example
 * createAgent({ store, sessionId, sessionMetadata: cliSessionMetadata('/repo', 'default', { askUser: true }) });
 */
export function cliSessionMetadata(
  workspace: string,
  mode: PermissionMode,
  options: { askUser?: boolean } = {},
): Record<string, unknown> {
  return {
    createdBy: CREATED_BY,
    workspace,
    mode,
    ...(options.askUser === true ? { askUser: true } : {}),
  };
}

/**
 * Whether a session's metadata says its model is offered the `ask_user` tool (sessions created
 * before `run` asked questions say nothing, and are read back, and resumed, without it).
 *
 * @example
 * sessionAsksUser(header.metadata); // true for a session `run` created
 */
export function sessionAsksUser(metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.askUser === true;
}

/**
 * The chart configuration to read a session back with: the built-in tools, the permission mode
 * its metadata names (`default` when it names none: a session created elsewhere), and the
 * `ask_user` tool when its metadata says so.
 *
 * @example
 * const config = cliChartConfig(header.metadata);
 */
export function cliChartConfig(metadata: Record<string, unknown> | undefined): AgentConfig {
  const named = metadata?.mode;
  const mode: PermissionMode = (PERMISSION_MODES as readonly unknown[]).includes(named)
    ? (named as PermissionMode)
    : 'default';
  return {
    tools: createToolRegistry(createBuiltinTools()).specs(),
    permissions: { mode },
    ...(sessionAsksUser(metadata) ? { askUser: true } : {}),
  };
}
