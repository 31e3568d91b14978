/**
 * Pure mode runs the caller's hooks itself: `runHook(hooks, hookInputOf(action))` answers each
 * action that asks for a hook with the event the chart waits for, as the `hook` actor would.
 */
import { expect, it } from 'vitest';
import {
  type AgentAction,
  AgentCore,
  type AgentHooks,
  hookInputOf,
  type RunHookAction,
  runHook,
} from '../../src/index.js';

const HOOK_ACTIONS = new Set<AgentAction['type']>([
  'RunPreToolUseHook',
  'RunPostToolUseHook',
  'RunUserPromptSubmitHook',
  'RunStopHook',
]);

const isHookAction = (action: AgentAction): action is RunHookAction =>
  HOOK_ACTIONS.has(action.type);

/** Hands `event` to the core and answers every hook it asks for, until it asks for none. */
async function drive(
  core: AgentCore,
  hooks: AgentHooks,
  event: Parameters<AgentCore['handleEvent']>[0],
) {
  const seen: AgentAction[] = [];
  let actions = core.handleEvent(event);
  for (;;) {
    seen.push(...actions);
    const asked = actions.find(isHookAction);
    if (asked === undefined) return seen;
    actions = core.handleEvent(await runHook(hooks, hookInputOf(asked), { sessionId: 's1' }));
  }
}

it('runs the prompt hook for its action, and the model call carries the note it added', async () => {
  const contexts: (string | undefined)[] = [];
  const hooks: AgentHooks = {
    userPromptSubmit: ({ text }, { sessionId }) => {
      contexts.push(sessionId);
      return { context: `seen: ${text}` };
    },
  };
  const core = new AgentCore({ hooks: { userPromptSubmit: true } });
  const actions = await drive(core, hooks, {
    type: 'UserInput',
    message: { role: 'user', content: 'hi' },
  });
  expect(contexts).toEqual(['s1']);
  const request = actions.find((action) => action.type === 'SendLlmRequest');
  expect(request?.type === 'SendLlmRequest' && request.request.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'text', text: '[userPromptSubmit hook] seen: hi' },
      ],
    },
  ]);
});

it('runs the stop hook for its action, and a failing one lets the turn end with an error shown', async () => {
  const hooks: AgentHooks = {
    stop: () => {
      throw new Error('no verdict');
    },
  };
  const core = new AgentCore({ hooks: { stop: true } });
  core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
  const actions = await drive(core, hooks, {
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      stopReason: 'end_turn',
    },
  });
  expect(actions.map((action) => action.type)).toEqual([
    'LlmCallEnded',
    'UsageReported',
    'RunStopHook',
    'DisplayError',
    'WaitForInput',
  ]);
  expect(actions).toContainEqual({
    type: 'DisplayError',
    message: 'the stop hook failed: no verdict; the turn ended as it would have',
    source: 'hook',
  });
  expect(core.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
});

it('asks the prompt hook even once the budget is spent: a blocked prompt never enters the transcript', () => {
  const core = new AgentCore({
    hooks: { userPromptSubmit: true },
    model: 'claude-haiku-4-5',
    maxBudgetUsd: 0.000_001,
  });
  const say = (content: string) =>
    core.handleEvent({ type: 'UserInput', message: { role: 'user', content } });
  say('first');
  core.handleEvent({ type: 'UserPromptSubmitDecision' });
  core.handleEvent({
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content: [{ type: 'text', text: 'Spent.' }] },
      stopReason: 'end_turn',
      usage: { input_tokens: 1_000, output_tokens: 100 },
    },
  });
  expect(say('my password is hunter2').map((action) => action.type)).toEqual([
    'RunUserPromptSubmitHook',
  ]);
  core.handleEvent({ type: 'UserPromptSubmitDecision', decision: 'block', reason: 'a secret' });
  expect(JSON.stringify(core.context.messages)).not.toContain('hunter2');
  say('go on');
  const passed = core.handleEvent({ type: 'UserPromptSubmitDecision' });
  expect(passed.map((action) => action.type)).toEqual(['DisplayError', 'WaitForInput']);
  expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'go on' });
});
