/**
 * The caller's hooks on a turn in pure mode: `userPromptSubmit` checks each prompt, held at the
 * head of the queue in `WaitingForUserInput.CheckingPrompt`, before it starts a turn (a blocked
 * prompt is handed back and never reaches the transcript); `stop` is asked, in
 * `ProcessingLlmResponse.CheckingStop`, about a response that would end the turn, and may have
 * the turn go on once. Both fail open; interrupts, shutdowns and restores leave nothing behind.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentEvent,
  type AgentSnapshot,
  type Message,
  type StopDecisionEvent,
  type UserPromptSubmitDecisionEvent,
} from '../../src/index.js';
import { call, completed, toolOk, userInput } from '../support/events.js';

const prompt = (content: string): Message => ({ role: 'user', content });
const types = (actions: AgentAction[]) => actions.map((action) => action.type);
const requestOf = (actions: AgentAction[]) => {
  const sends = actions.filter((action) => action.type === 'SendLlmRequest');
  expect(sends).toHaveLength(1);
  return sends[0]?.type === 'SendLlmRequest' ? sends[0].request : undefined;
};
const viaJson = (snapshot: AgentSnapshot): AgentSnapshot =>
  JSON.parse(JSON.stringify(snapshot)) as AgentSnapshot;

const checkingPrompt = { WaitingForUserInput: 'CheckingPrompt' };
const checkingStop = { ProcessingLlmResponse: 'CheckingStop' };
const ready = { WaitingForUserInput: 'Ready' };

const decide = (
  fields: Omit<UserPromptSubmitDecisionEvent, 'type'> = {},
): UserPromptSubmitDecisionEvent => ({ type: 'UserPromptSubmitDecision', ...fields });
const stopDecision = (fields: Omit<StopDecisionEvent, 'type'> = {}): StopDecisionEvent => ({
  type: 'StopDecision',
  ...fields,
});

const PROMPT_HOOK: AgentConfig = { hooks: { userPromptSubmit: true } };
const STOP_HOOK: AgentConfig = { hooks: { stop: true } };

/** A response without tool calls: what it makes the chart do past `LlmCallEnded` and usage. */
function ending(core: AgentCore, text: string | null): AgentAction[] {
  const [ended, reported, ...actions] = core.handleEvent(completed(text));
  expect(ended?.type).toBe('LlmCallEnded');
  expect(reported?.type).toBe('UsageReported');
  return actions;
}

const assistant = (text: string): Message => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

describe('the userPromptSubmit hook', () => {
  it('holds a prompt in CheckingPrompt and asks about it, before any model call', () => {
    const core = new AgentCore(PROMPT_HOOK);
    expect(core.handleEvent(userInput('fix the bug'))).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('fix the bug') },
    ]);
    expect(core.stateValue).toEqual(checkingPrompt);
    expect(core.context.queue).toEqual([prompt('fix the bug')]);
    expect(core.context.messages).toEqual([]);
  });

  it('drops a blocked prompt with the reason, keeps it out of the transcript, then checks the next', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('deploy with key sk-123'));
    // Typed while the hook decides: it queues behind, unasked for now.
    expect(core.handleEvent(userInput('fix the bug'))).toEqual([]);
    expect(core.context.queue).toEqual([prompt('deploy with key sk-123'), prompt('fix the bug')]);

    expect(core.handleEvent(decide({ decision: 'block', reason: 'it names a secret' }))).toEqual([
      {
        type: 'PromptDropped',
        prompt: prompt('deploy with key sk-123'),
        reason: 'the userPromptSubmit hook blocked it: it names a secret',
      },
      { type: 'RunUserPromptSubmitHook', prompt: prompt('fix the bug') },
    ]);
    expect(core.stateValue).toEqual(checkingPrompt);
    expect(core.context.queue).toEqual([prompt('fix the bug')]);
    expect(core.context.messages).toEqual([]);

    const request = requestOf(core.handleEvent(decide()));
    expect(request?.messages).toEqual([prompt('fix the bug')]);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.queue).toEqual([]);
  });

  it('drops a blocked prompt without a reason, and waits for input when nothing else is queued', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('hi'));
    expect(core.handleEvent(decide({ decision: 'block', context: 'ignored' }))).toEqual([
      {
        type: 'PromptDropped',
        prompt: prompt('hi'),
        reason: 'the userPromptSubmit hook blocked it',
      },
      { type: 'WaitForInput' },
    ]);
    expect(core.stateValue).toEqual(ready);
    expect(core.context.messages).toEqual([]);
    expect(core.context.queue).toEqual([]);
  });

  it('lets a prompt through with its note after the prompt text, in a block of its own', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('fix the bug'));
    const actions = core.handleEvent(decide({ context: 'branch: main, 2 files changed' }));
    expect(types(actions)).toEqual(['SendLlmRequest']);
    const last = requestOf(actions)?.messages.at(-1);
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'fix the bug' },
        { type: 'text', text: '[userPromptSubmit hook] branch: main, 2 files changed' },
      ],
    });
    expect(core.context.messages).toEqual([last]);
  });

  it('adds the note after every block of a prompt given as blocks', () => {
    const core = new AgentCore(PROMPT_HOOK);
    const blocks: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'look at this' },
        { type: 'text', text: 'and this' },
      ],
    };
    core.handleEvent({ type: 'UserInput', message: blocks });
    core.handleEvent(decide({ context: 'note' }));
    expect(core.context.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look at this' },
          { type: 'text', text: 'and this' },
          { type: 'text', text: '[userPromptSubmit hook] note' },
        ],
      },
    ]);
  });

  it('fails open: a hook that failed lets the prompt go on as it was, and the user is told', () => {
    for (const decision of [
      {},
      { decision: 'block' as const, reason: 'never read' },
      { context: 'never added' },
    ]) {
      const core = new AgentCore(PROMPT_HOOK);
      core.handleEvent(userInput('fix the bug'));
      const actions = core.handleEvent(
        decide({ ...decision, error: 'the userPromptSubmit hook failed: boom' }),
      );
      expect(actions).toContainEqual({
        type: 'DisplayError',
        message: 'the userPromptSubmit hook failed: boom; the prompt went on unchecked',
        source: 'hook',
      });
      expect(types(actions)).not.toContain('PromptDropped');
      expect(requestOf(actions)?.messages).toEqual([prompt('fix the bug')]);
      expect(core.state).toBe('CallingLlm');
    }
  });

  it('checks input queued during a turn in order, one prompt at a time', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('first'));
    core.handleEvent(decide());
    expect(core.handleEvent(userInput('second'))).toEqual([]);
    expect(core.handleEvent(userInput('third'))).toEqual([]);
    expect(core.context.queue).toEqual([prompt('second'), prompt('third')]);

    // The turn ends: the oldest queued input is checked, not sent.
    expect(ending(core, 'Done.')).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('second') },
    ]);
    expect(core.stateValue).toEqual(checkingPrompt);
    expect(core.context.queue).toEqual([prompt('second'), prompt('third')]);

    const second = requestOf(core.handleEvent(decide()));
    expect(second?.messages.at(-1)).toEqual(prompt('second'));
    expect(core.context.queue).toEqual([prompt('third')]);
    expect(ending(core, 'Done again.')).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('third') },
    ]);
    expect(core.handleEvent(decide({ decision: 'block' }))).toEqual([
      {
        type: 'PromptDropped',
        prompt: prompt('third'),
        reason: 'the userPromptSubmit hook blocked it',
      },
      { type: 'WaitForInput' },
    ]);
    expect(core.context.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('keeps the answer form a UserInput names through the check', () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    const core = new AgentCore(PROMPT_HOOK);
    const input: AgentEvent = {
      type: 'UserInput',
      message: prompt('review it'),
      output: { schema },
    };
    expect(types(core.handleEvent(input))).toEqual(['RunUserPromptSubmitHook']);
    expect(core.context.output?.form.name).toBe('final_answer');
    const request = requestOf(core.handleEvent(decide({ context: 'PR #12' })));
    expect(request?.output).toEqual({ name: 'final_answer', schema });
    expect(request?.tools?.map((tool) => tool.name)).toContain('final_answer');
    // Input that names a form cannot wait in the queue: refused while the hook decides.
    const refused: string[] = [];
    const other = new AgentCore(PROMPT_HOOK, { onDiagnostic: (d) => refused.push(d.code) });
    other.handleEvent(userInput('first'));
    expect(other.handleEvent(input)).toEqual([]);
    expect(refused).toEqual(['EVENT_NOT_ACCEPTED']);
    expect(other.context.queue).toEqual([prompt('first')]);
  });

  it('is not asked, and nothing waits, when the hook is off', () => {
    const core = new AgentCore({ hooks: { preToolUse: true, stop: true } });
    expect(types(core.handleEvent(userInput('hi')))).toEqual(['SendLlmRequest']);
    const refused: string[] = [];
    core.onDiagnostic((d) => refused.push(d.code));
    expect(core.handleEvent(decide())).toEqual([]);
    expect(refused).toEqual(['EVENT_NOT_ACCEPTED']);
  });

  it('withdraws the prompt on an interrupt: the hook is cancelled and the prompt handed back', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('first'));
    expect(core.handleEvent({ type: 'Interrupt' })).toEqual([
      { type: 'Cancel', hook: true },
      {
        type: 'PromptDropped',
        prompt: prompt('first'),
        reason: 'the turn was interrupted before the userPromptSubmit hook decided',
      },
      { type: 'WaitForInput' },
    ]);
    expect(core.stateValue).toEqual(ready);
    expect(core.context.messages).toEqual([]);
    expect(core.context.queue).toEqual([]);

    // With more queued, the next prompt is checked in its turn.
    core.handleEvent(userInput('second'));
    core.handleEvent(userInput('third'));
    expect(core.handleEvent({ type: 'Interrupt' })).toEqual([
      { type: 'Cancel', hook: true },
      {
        type: 'PromptDropped',
        prompt: prompt('second'),
        reason: 'the turn was interrupted before the userPromptSubmit hook decided',
      },
      { type: 'RunUserPromptSubmitHook', prompt: prompt('third') },
    ]);
    expect(core.stateValue).toEqual(checkingPrompt);
  });

  it('hands the held prompt back among the discarded input on shutdown', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('first'));
    core.handleEvent(userInput('second'));
    expect(core.handleEvent({ type: 'ShutdownRequested' })).toEqual([
      { type: 'Cancel', hook: true },
      { type: 'Shutdown', discardedInput: [prompt('first'), prompt('second')] },
    ]);
    expect(core.state).toBe('ShuttingDown');
    expect(core.context.messages).toEqual([]);
  });

  it('is restored in CheckingPrompt, and asked again on Resume', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('first'));
    core.handleEvent(userInput('second'));
    // The original asks again on a Resume too (the hook's process restarted).
    expect(core.handleEvent({ type: 'Resume' })).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('first') },
    ]);
    const stored = viaJson(core.snapshot());
    expect(stored.state).toBe('WaitingForUserInput');
    const restored = AgentCore.fromSnapshot(stored, PROMPT_HOOK);
    expect(restored.stateValue).toEqual(checkingPrompt);
    expect(restored.handleEvent({ type: 'Resume' })).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('first') },
    ]);
    expect(requestOf(restored.handleEvent(decide()))?.messages).toEqual([prompt('first')]);
    expect(restored.context.queue).toEqual([prompt('second')]);
  });

  it('restored with the hook off, still checks the held prompt once, and keeps the order of input', () => {
    const core = new AgentCore(PROMPT_HOOK);
    core.handleEvent(userInput('first'));
    const restored = AgentCore.fromSnapshot(viaJson(core.snapshot()), {});
    expect(restored.stateValue).toEqual(checkingPrompt);
    // Input that comes before the Resume queues behind the held prompt.
    restored.handleEvent(userInput('second'));
    expect(restored.handleEvent({ type: 'Resume' })).toEqual([
      { type: 'RunUserPromptSubmitHook', prompt: prompt('first') },
    ]);
    expect(requestOf(restored.handleEvent(decide()))?.messages).toEqual([prompt('first')]);
    expect(restored.context.queue).toEqual([prompt('second')]);
  });
});

describe('the stop hook', () => {
  it('is asked about a response that would end the turn, and may have the turn go on once', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('fix the tests'));
    expect(ending(core, 'Fixed.')).toEqual([
      { type: 'RunStopHook', response: assistant('Fixed.') },
    ]);
    expect(core.stateValue).toEqual(checkingStop);

    const actions = core.handleEvent(
      stopDecision({ decision: 'continue', reason: 'two tests still fail' }),
    );
    expect(types(actions)).toEqual(['SendLlmRequest']);
    expect(requestOf(actions)?.messages).toEqual([
      prompt('fix the tests'),
      assistant('Fixed.'),
      prompt('[stop hook] two tests still fail'),
    ]);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.turn.stopHookContinued).toBe(true);

    // The turn ends again: the hook is not asked again this turn.
    expect(ending(core, 'Now they pass.')).toEqual([{ type: 'WaitForInput' }]);
    expect(core.stateValue).toEqual(ready);

    // The next turn may go on once again.
    core.handleEvent(userInput('and the docs'));
    expect(core.context.turn.stopHookContinued).toBe(false);
    expect(ending(core, 'Done.')).toEqual([{ type: 'RunStopHook', response: assistant('Done.') }]);
  });

  it('still goes on once after tool calls in between', () => {
    const core = new AgentCore({ ...STOP_HOOK, tools: [{ name: 'read_file', mutating: false }] });
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    core.handleEvent(stopDecision({ decision: 'continue', reason: 'check the file' }));
    core.handleEvent(completed(null, [call('t1', 'read_file', { path: 'a' })]));
    core.handleEvent(toolOk('t1'));
    expect(types(ending(core, 'Checked.'))).toEqual(['WaitForInput']);
  });

  it('lets the turn end as it would have on any other answer', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    expect(core.handleEvent(stopDecision({ reason: 'fine' }))).toEqual([{ type: 'WaitForInput' }]);
    expect(core.stateValue).toEqual(ready);
    expect(core.context.messages).toEqual([prompt('go'), assistant('Done.')]);
  });

  it('fails open: a hook that failed ends the turn as it would have, and the user is told', () => {
    for (const decision of [{}, { decision: 'continue' as const, reason: 'never read' }]) {
      const core = new AgentCore(STOP_HOOK);
      core.handleEvent(userInput('go'));
      ending(core, 'Done.');
      expect(
        core.handleEvent(stopDecision({ ...decision, error: 'the stop hook failed: timed out' })),
      ).toEqual([
        {
          type: 'DisplayError',
          message: 'the stop hook failed: timed out; the turn ended as it would have',
          source: 'hook',
        },
        { type: 'WaitForInput' },
      ]);
      expect(core.context.messages).toEqual([prompt('go'), assistant('Done.')]);
      expect(core.context.turn.stopHookContinued).toBe(false);
    }
  });

  it('refuses a continue without the model’s next instruction, as malformed', () => {
    const refused: string[] = [];
    const core = new AgentCore(STOP_HOOK, { onDiagnostic: (d) => refused.push(d.code) });
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    expect(core.handleEvent(stopDecision({ decision: 'continue' }))).toEqual([]);
    expect(core.handleEvent(stopDecision({ decision: 'continue', reason: ' ' }))).toEqual([]);
    expect(refused).toEqual(['MALFORMED_EVENT', 'MALFORMED_EVENT']);
    expect(core.stateValue).toEqual(checkingStop);
  });

  it('is not asked once maxTurns is reached: the turn could not go on', () => {
    const core = new AgentCore({ ...STOP_HOOK, maxTurns: 1 });
    core.handleEvent(userInput('go'));
    expect(ending(core, 'Done.')).toEqual([{ type: 'WaitForInput' }]);
    expect(core.stateValue).toEqual(ready);

    // With room for one more call it is asked, and after it is reached not again.
    const two = new AgentCore({ ...STOP_HOOK, maxTurns: 2 });
    two.handleEvent(userInput('go'));
    expect(types(ending(two, 'Done.'))).toEqual(['RunStopHook']);
    two.handleEvent(stopDecision({ decision: 'continue', reason: 'check again' }));
    expect(ending(two, 'Checked.')).toEqual([{ type: 'WaitForInput' }]);
  });

  it('is not asked about a refusal or a response with tool calls', () => {
    const core = new AgentCore({ ...STOP_HOOK, tools: [{ name: 'read_file', mutating: false }] });
    core.handleEvent(userInput('go'));
    const [, , ...refusal] = core.handleEvent(completed('No.', [], 'refusal'));
    expect(types(refusal)).not.toContain('RunStopHook');
    expect(core.stateValue).toEqual(ready);
    core.handleEvent(userInput('read it'));
    const [, , ...calls] = core.handleEvent(completed(null, [call('t1', 'read_file', {})]));
    expect(types(calls)).toEqual(['ExecuteTools']);
  });

  it('sees null for a response with no content, and its reason then joins the prompt', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    expect(ending(core, null)).toEqual([{ type: 'RunStopHook', response: null }]);
    const actions = core.handleEvent(
      stopDecision({ decision: 'continue', reason: 'say something' }),
    );
    // One user message between the model's: the reason is a block of the prompt's message.
    expect(requestOf(actions)?.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'go' },
          { type: 'text', text: '[stop hook] say something' },
        ],
      },
    ]);
  });

  it('queues input typed while it decides, and the next turn starts once the turn ends', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    expect(core.handleEvent(userInput('next'))).toEqual([]);
    expect(core.stateValue).toEqual(checkingStop);
    const request = requestOf(core.handleEvent(stopDecision()));
    expect(request?.messages).toEqual([prompt('go'), assistant('Done.'), prompt('next')]);
    // The queued prompt's turn is a new one, asked about again.
    expect(types(ending(core, 'Next done.'))).toEqual(['RunStopHook']);
  });

  it('is cancelled by an interrupt, which ends the turn with the response kept', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    expect(core.handleEvent({ type: 'Interrupt' })).toEqual([
      { type: 'Cancel', hook: true },
      { type: 'WaitForInput' },
    ]);
    expect(core.stateValue).toEqual(ready);
    expect(core.context.messages).toEqual([prompt('go'), assistant('Done.')]);

    // With input queued, the interrupt starts its turn (checked first, with that hook on).
    const both = new AgentCore({ hooks: { stop: true, userPromptSubmit: true } });
    both.handleEvent(userInput('go'));
    both.handleEvent(decide());
    ending(both, 'Done.');
    both.handleEvent(userInput('next'));
    expect(both.handleEvent({ type: 'Interrupt' })).toEqual([
      { type: 'Cancel', hook: true },
      { type: 'RunUserPromptSubmitHook', prompt: prompt('next') },
    ]);
    expect(both.stateValue).toEqual(checkingPrompt);
  });

  it('is cancelled by a shutdown, which hands back queued input', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    core.handleEvent(userInput('next'));
    expect(core.handleEvent({ type: 'ShutdownRequested' })).toEqual([
      { type: 'Cancel', hook: true },
      { type: 'Shutdown', discardedInput: [prompt('next')] },
    ]);
    expect(core.state).toBe('ShuttingDown');
  });

  it('is restored in CheckingStop, asked again on Resume, and still goes on only once', () => {
    const core = new AgentCore(STOP_HOOK);
    core.handleEvent(userInput('go'));
    ending(core, 'Done.');
    const stored = viaJson(core.snapshot());
    expect(stored.state).toBe('ProcessingLlmResponse');
    const restored = AgentCore.fromSnapshot(stored, STOP_HOOK);
    expect(restored.stateValue).toEqual(checkingStop);
    expect(restored.handleEvent({ type: 'Resume' })).toEqual([
      { type: 'RunStopHook', response: assistant('Done.') },
    ]);
    restored.handleEvent(stopDecision({ decision: 'continue', reason: 'once more' }));
    // Restored after it had the turn go on: the turn ends without asking it again.
    const again = AgentCore.fromSnapshot(viaJson(restored.snapshot()), STOP_HOOK);
    expect(again.context.turn.stopHookContinued).toBe(true);
    expect(ending(again, 'Done again.')).toEqual([{ type: 'WaitForInput' }]);
  });
});
