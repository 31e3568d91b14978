/**
 * (b) The package: one `createAgent` per agent, built only through the public API, with the
 * turn's read-only tool defined by `defineTool` and text shown through `agent.on('text')`. The
 * package is a parameter, so that the same code measures this checkout's build and a baseline
 * commit's (`--baseline`).
 */
import { tmpdir } from 'node:os';
import type * as Package from '../../../src/index.js';
import * as turn from '../agentTurn.js';
import { API_KEY, type DensitySubject } from '../densitySubject.js';
import { NOTE_INPUT } from '../noteInput.js';

/** What the subject calls of the package. */
export const AGENT_EXPORTS = ['createAgent', 'defineTool'] as const;
export type AgentPackage = Pick<typeof Package, (typeof AGENT_EXPORTS)[number]>;

export function createAgentSubject(
  { createAgent, defineTool }: AgentPackage,
  options: { transport?: 'sdk' | 'lean'; telemetry?: Package.TelemetryOptions } = {},
): DensitySubject {
  const readNoteTool = defineTool({
    name: turn.TOOL_NAME,
    description: turn.TOOL_DESCRIPTION,
    input: NOTE_INPUT,
    mutating: false,
    execute: ({ name }) => turn.readNote(name),
  });
  return {
    createAgent(baseURL) {
      const agent = createAgent({
        anthropic: { baseURL, apiKey: API_KEY },
        model: turn.MODEL,
        maxTokens: turn.MAX_TOKENS,
        tools: [readNoteTool],
        autoCommit: false,
        ...options,
        // The turn's tool reads nothing from the workspace, and nothing is committed.
        workspace: tmpdir(),
      });
      let textSeen = 0;
      const errors: string[] = [];
      agent.on('text', ({ text }) => {
        textSeen += text.length;
      });
      agent.on('error', ({ message }) => {
        errors.push(message);
      });
      return {
        async runTurn() {
          agent.send(turn.PROMPT);
          await agent.waitUntilIdle();
        },
        check() {
          if (errors.length > 0) return `error: ${errors[0]}`;
          if (agent.state !== 'WaitingForUserInput') return `ended in ${agent.state}`;
          return turn.turnProblem(textSeen, agent.context.messages.length);
        },
        close: () => agent.shutdown(),
      };
    },
  };
}
