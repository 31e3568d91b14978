/**
 * What `run` and `sessions show` say a resume did (or would do), now that a model call is one of
 * `CallingLlm`'s states: the request sent again from `Streaming`, the summary call sent again from
 * `Compacting`, the `preCompact` hook asked again from `CheckingCompaction`.
 */
import { expect, it } from 'vitest';
import { describeResume, type ResumeItem } from '../../src/cli/describeResume.js';
import { type AgentConfig, AgentCore, type AgentEvent } from '../../src/index.js';

const config: AgentConfig = {
  compaction: { contextWindow: 1_000, threshold: 0.5, keepRecentTokens: 100 },
};

const input = (text: string): AgentEvent => ({
  type: 'UserInput',
  message: { role: 'user', content: text },
});

const answer = (text: string, inputTokens: number): AgentEvent => ({
  type: 'LlmCompleted',
  response: {
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    stopReason: 'end_turn',
    usage: { input_tokens: inputTokens, output_tokens: 10 },
  },
});

/** What describeResume says of `core` restored where it stands and resumed. */
function resumed(core: AgentCore, withConfig: AgentConfig = config): ResumeItem[] {
  const copy = AgentCore.fromSnapshot(core.snapshot(), withConfig);
  const before = { value: copy.stateValue, context: copy.context };
  const resume = { type: 'Resume' as const, startedToolCallIds: [] };
  const actions = copy.handleEvent(resume);
  return describeResume({
    before,
    resume,
    actions,
    after: { value: copy.stateValue, context: copy.context },
  });
}

it('says the request is sent again from CallingLlm.Streaming', () => {
  const core = new AgentCore(config);
  core.handleEvent(input('hello'));
  expect(core.stateValue).toEqual({ CallingLlm: 'Streaming' });
  expect(resumed(core)).toEqual([
    { kind: 'sent again', text: 'the model call (its partial answer dropped)' },
  ]);
});

it('says the summary call is sent again from CallingLlm.Compacting, and not the request', () => {
  const core = new AgentCore(config);
  core.handleEvent(input('first question'));
  core.handleEvent(answer('first answer', 200));
  core.handleEvent(input('second question'));
  // The API counted the transcript past half the window: the next request compacts first.
  core.handleEvent(answer('second answer', 700));
  core.handleEvent(input('third question'));
  expect(core.stateValue).toEqual({ CallingLlm: 'Compacting' });
  expect(resumed(core)).toEqual([
    {
      kind: 'sent again',
      text: 'the summary call of the auto compaction (its partial answer dropped)',
    },
  ]);
});

it('says the preCompact hook is asked again from WaitingForUserInput.CheckingCompaction', () => {
  const hooked: AgentConfig = { ...config, hooks: { preCompact: true } };
  const core = new AgentCore(hooked);
  core.handleEvent(input('first question'));
  core.handleEvent(answer('first answer', 200));
  core.handleEvent(input('second question'));
  core.handleEvent(answer('second answer', 300));
  core.handleEvent({ type: 'Compact' });
  expect(core.stateValue).toEqual({ WaitingForUserInput: 'CheckingCompaction' });
  expect(resumed(core, hooked)).toEqual([
    { kind: 'hook re-run', text: 'the preCompact hook on the manual compaction' },
  ]);
});
