/**
 * `run --agents FILE`: the subagents the model may hand sub-tasks to with the `task` tool, read
 * from a JSON file of specs by name (`createAgent`'s `agents` option), and the rule for a resumed
 * `run --session`: it runs with the agents it was created with, whose task calls its log holds.
 */
import { readFile } from 'node:fs/promises';
import { createBuiltinTools, createToolRegistry } from '../actors/index.js';
import {
  AgentStatechartError,
  errorMessage,
  resolveConfig,
  type SubagentSpec,
} from '../machine/index.js';

/** The fields a subagent's spec takes (see `SubagentSpec`). */
const SPEC_FIELDS: readonly string[] = ['description', 'system', 'tools', 'model', 'maxTurns'];

/**
 * Reads the agents of `path`, relative to the current directory: a JSON object of specs by name,
 * `{ "reviewer": { "description": "…", "tools": ["read_file"] } }`, checked as `createAgent`
 * checks its `agents` (against the built-in tools). Throws one line that names the file.
 *
 * @example
 * const agents = await readAgentsFile('agents.json');
 */
export async function readAgentsFile(path: string): Promise<Record<string, SubagentSpec>> {
  const refuse = (problem: string, cause?: unknown): never => {
    throw new AgentStatechartError('INVALID_OPTION', `--agents ${path}: ${problem}`, {
      cause,
    });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    refuse(
      error instanceof SyntaxError ? `not JSON (${error.message})` : errorMessage(error),
      error,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return refuse(
      `must be a JSON object of agents by name, { "name": { "description": "…" } }; got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`,
    );
  }
  for (const [name, spec] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) continue;
    // A misspelt field would otherwise be left out without a word.
    const unknown = Object.keys(spec).find((field) => !SPEC_FIELDS.includes(field));
    if (unknown !== undefined) {
      refuse(
        `agents['${name}'] has '${unknown}', which an agent's spec does not take (it takes ${SPEC_FIELDS.join(', ')})`,
      );
    }
  }
  const agents = parsed as Record<string, SubagentSpec>;
  try {
    // The chart's own check, against the tools `run` gives the agent.
    resolveConfig({ tools: createToolRegistry(createBuiltinTools()).specs(), agents });
  } catch (error) {
    refuse(errorMessage(error), error);
  }
  return agents;
}

/**
 * The agents given on the command line for a resume: where they came from, and the specs.
 *
 * @example
 * const given: GivenAgents = { file: 'agents.json', agents: await readAgentsFile('agents.json') };
 */
export interface GivenAgents {
  file: string;
  agents: Record<string, SubagentSpec>;
}

/**
 * Refuses, with `INVALID_OPTION` and what to do instead, a resume of session `sessionId` (which
 * records the agents `recorded`, or none) with `--agents` naming other agents, or the same names
 * with other specs. Without `--agents` the session takes the agents it records.
 *
 * @example
 * checkResumedSessionAgents('fix-tests', sessionAgents(header.metadata), given);
 */
export function checkResumedSessionAgents(
  sessionId: string,
  recorded: Record<string, SubagentSpec> | undefined,
  given: GivenAgents | undefined,
): void {
  if (given === undefined) return;
  const keeps =
    'a session keeps the agents it was created with, since its log is read back with them';
  if (recorded === undefined) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `session '${sessionId}' was created without agents, so --agents ${given.file} cannot be given to it (${keeps}); start a new session (another --session NAME) to use them, or leave out --agents`,
    );
  }
  const runs = Object.keys(recorded);
  const has = Object.keys(given.agents);
  const missing = runs.filter((name) => !has.includes(name));
  const added = has.filter((name) => !runs.includes(name));
  const instead = `leave out --agents to resume it with its own, or start a new session (another --session NAME) for these`;
  if (missing.length > 0 || added.length > 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `--agents ${given.file} names ${list(has)}, but session '${sessionId}' runs with ${list(runs)} (${keeps}); ${instead}`,
    );
  }
  const changed = runs.filter(
    (name) => canonical(recorded[name]) !== canonical(given.agents[name]),
  );
  if (changed.length > 0) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `--agents ${given.file} gives ${list(changed)} another spec than session '${sessionId}' records (${keeps}); ${instead}`,
    );
  }
}

/** A JSON value as text with its keys sorted, so the order they were written in does not count. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

function list(names: readonly string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  return quoted.length > 1
    ? `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`
    : (quoted[0] ?? 'no agents');
}
