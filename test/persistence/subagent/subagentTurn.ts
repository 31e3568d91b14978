/**
 * The turn the subagent crash test runs: the model hands one task to a `researcher` subagent,
 * which appends a line to a side file (so a second run would show) and answers; the parent then
 * answers with what the subagent said. The model answers by the conversation, so a request sent
 * again gets the same answer; the task call's id comes from the server's request count, so a
 * response asked for again names a new task call (and would start a second subagent session).
 */
import { appendFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  type AgentConfig,
  type CreateAgentOptions,
  defineTool,
  type Message,
  type Tool,
} from '../../../src/index.js';
import { reply, type ScriptFunction } from '../../../src/testing/index.js';
import { systemText } from '../../support/agentRequests.js';

export const INPUT = 'Research alpha, note it, and tell me.';
export const CHILD_ANSWER = 'alpha: researched and noted';
export const AGENTS = {
  researcher: {
    description: 'Researches one topic and notes it',
    system: 'You are the researcher.',
    tools: ['append_side'],
  },
};
/** How the chart of the parent, and of its subagent, is configured in the child process. */
export const PARENT_CONFIG: AgentConfig = {
  tools: [{ name: 'append_side', mutating: true }],
  agents: AGENTS,
  permissions: { mode: 'bypassPermissions' },
};
export const CHILD_CONFIG: AgentConfig = {
  tools: [{ name: 'append_side', mutating: true }],
  permissions: { mode: 'bypassPermissions' },
};

function lastToolResult(messages: readonly Message[]): string {
  const last = messages.at(-1)?.content;
  if (!Array.isArray(last)) return '';
  const result = last.find((block) => block.type === 'tool_result');
  if (result?.type !== 'tool_result') return '';
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

/** The parent's and the researcher's model, told apart by the system prompt. */
export function treeModel(): ScriptFunction {
  return (request) => {
    const messages = request.messages as Message[];
    if (systemText(request.system).includes('researcher')) {
      if (messages.length === 1) {
        return reply([
          { type: 'text', text: 'Noting it.' },
          { type: 'tool_use', id: 'toolu_note', name: 'append_side', input: { line: 'alpha' } },
        ]);
      }
      return reply(CHILD_ANSWER);
    }
    if (messages.length === 1) {
      return reply([
        {
          type: 'tool_use',
          name: 'task',
          input: { agent: 'researcher', description: 'alpha', prompt: 'research alpha' },
        },
      ]);
    }
    return reply(`Done: ${lastToolResult(messages)}`);
  };
}

/** `append_side` appends a line to `sideFile`. */
export function sideTools(sideFile: string): Tool[] {
  return [
    defineTool({
      name: 'append_side',
      description: 'Appends a line to the side file.',
      input: z.object({ line: z.string() }),
      mutating: true,
      execute: async ({ line }) => {
        await appendFile(sideFile, `${line}\n`);
        return `appended ${line}`;
      },
    }),
  ];
}

/**
 * What every agent that runs this turn is created with: the side tool, the researcher, no
 * approvals, and the local Messages API server.
 */
export function turnAgentOptions(settings: {
  workspace: string;
  sideFile: string;
  baseURL: string;
}): CreateAgentOptions {
  return {
    workspace: settings.workspace,
    tools: sideTools(settings.sideFile),
    agents: AGENTS,
    autoCommit: false,
    permissions: { mode: 'bypassPermissions' },
    anthropic: { baseURL: settings.baseURL, apiKey: 'test-key' },
  };
}
