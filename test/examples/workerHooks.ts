/**
 * The hooks module `httpWorkers.test.ts` gives every worker process (`AGENT_HOOKS`), as a
 * deployment would. Each hook acts only on what that test's hooks case sends, so the other cases'
 * sessions run as they would without hooks.
 */
import type { AgentHooks } from 'agent-statechart';

export const hooks: AgentHooks = {
  userPromptSubmit: ({ text }) =>
    text.includes('sk-ant-')
      ? { decision: 'block', reason: 'the prompt contains an API key' }
      : undefined,
  stop: ({ text }) =>
    text === 'Done, I think.'
      ? { decision: 'continue', reason: 'check your work again' }
      : undefined,
};

export const hookTimeoutMs = 10_000;
