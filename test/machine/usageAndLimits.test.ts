/**
 * Usage and cost as the chart keeps them (per call, per turn, per session, cache tokens
 * included, priced from the list prices or the user's), and the limits that read them: a turn
 * that has made `maxTurns` model calls, and a session that has spent `maxBudgetUsd`, end as a
 * give-up does — the calls answered, the user told which limit, queued input going on.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentEvent,
  DEFAULT_MAX_TURNS,
  findTranscriptViolations,
  type LlmResponse,
} from '../../src/index.js';
import { actionsOf, userInput } from '../support/events.js';

let nextId = 0;
/** A response calling `read_file` once (or answering in text), with the usage given. */
function response(
  options: { tool?: boolean; model?: string; usage?: LlmResponse['usage'] } = {},
): AgentEvent {
  const content: LlmResponse['message']['content'] = [{ type: 'text', text: 'Working.' }];
  if (options.tool) {
    content.push({ type: 'tool_use', id: `toolu_${++nextId}`, name: 'read_file', input: {} });
  }
  return {
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content },
      stopReason: options.tool ? 'tool_use' : 'end_turn',
      ...(options.model ? { model: options.model } : {}),
      usage: options.usage ?? { input_tokens: 1000, output_tokens: 100 },
    },
  };
}

/** Answers every tool call of the current response as pure mode's caller would. */
function runTools(core: AgentCore): AgentAction[] {
  const actions: AgentAction[] = [];
  for (const run of core.context.toolRuns) {
    actions.push(
      ...core.handleEvent({
        type: 'ToolCompleted',
        callId: run.call.id,
        outcome: { status: 'success', output: 'file contents' },
      }),
    );
  }
  return actions;
}

const readOnly: AgentConfig['tools'] = [{ name: 'read_file', mutating: false }];

describe('usage and cost', () => {
  it('sums every call, the turn and the session, cache tokens included, priced from the list', () => {
    const core = new AgentCore({ tools: readOnly });
    core.handleEvent(userInput('read it'));
    const cached = {
      input_tokens: 2_000,
      output_tokens: 300,
      cache_creation_input_tokens: 10_000,
      cache_read_input_tokens: 50_000,
    };
    const first = core.handleEvent(
      response({ tool: true, model: 'claude-sonnet-4-5-20250929', usage: cached }),
    );
    // $3 / $15 per million, cache writes ×1.25, reads ×0.1.
    const callCost = (2_000 * 3 + 300 * 15 + 10_000 * 3.75 + 50_000 * 0.3) / 1e6;
    expect(actionsOf(first, 'UsageReported')).toEqual([
      {
        type: 'UsageReported',
        model: 'claude-sonnet-4-5-20250929',
        call: { ...cached, costUsd: callCost },
        turn: { ...cached, calls: 1, costUsd: callCost },
        session: { ...cached, calls: 1, costUsd: callCost },
      },
    ]);
    runTools(core);
    core.handleEvent(response({ model: 'claude-sonnet-4-5-20250929' }));
    const secondCost = (1_000 * 3 + 100 * 15) / 1e6;
    expect(core.context.turn.usage).toMatchObject({ calls: 2, input_tokens: 3_000 });
    expect(core.context.turn.usage.costUsd).toBeCloseTo(callCost + secondCost, 12);

    core.handleEvent(userInput('again'));
    expect(core.context.turn.usage).toMatchObject({ calls: 0, costUsd: 0, input_tokens: 0 });
    core.handleEvent(response({ model: 'claude-sonnet-4-5-20250929' }));
    expect(core.context.turn.usage).toMatchObject({ calls: 1, input_tokens: 1_000 });
    expect(core.context.usage).toMatchObject({ calls: 3, input_tokens: 4_000, output_tokens: 500 });
    expect(core.context.usage.costUsd).toBeCloseTo(callCost + 2 * secondCost, 12);
  });

  it('prices with the user’s table over the list, and says nothing of a model it has no price for', () => {
    const priced = new AgentCore({
      model: 'my-proxy-model',
      pricing: { 'my-proxy-model': { input: 1, output: 2, cacheWrite: 0, cacheRead: 0 } },
    });
    priced.handleEvent(userInput('hi'));
    priced.handleEvent(response());
    expect(priced.context.usage.costUsd).toBeCloseTo((1_000 * 1 + 100 * 2) / 1e6, 12);

    const unpriced = new AgentCore({ model: 'my-proxy-model' });
    unpriced.handleEvent(userInput('hi'));
    const [, reported] = unpriced.handleEvent(response());
    expect(reported).toMatchObject({ type: 'UsageReported', call: { costUsd: null } });
    expect(unpriced.context.usage).toMatchObject({ calls: 1, costUsd: null, input_tokens: 1_000 });
  });

  it('restores a snapshot that summed fewer fields without inventing a cost', () => {
    const core = new AgentCore();
    const snapshot = core.snapshot();
    const older = {
      ...snapshot,
      context: { ...snapshot.context, usage: { input_tokens: 7, output_tokens: 3 } },
    };
    delete (older.context as Partial<typeof older.context>).turn;
    const restored = AgentCore.fromSnapshot(JSON.parse(JSON.stringify(older)) as typeof snapshot);
    expect(restored.context.usage).toEqual({
      input_tokens: 7,
      output_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      calls: 0,
      costUsd: null,
    });
    restored.handleEvent(userInput('hi'));
    restored.handleEvent(response());
    expect(restored.context.usage.input_tokens).toBe(1_007);
    expect(restored.context.turn.usage.calls).toBe(1);
  });

  it("carries over the turn's usage from a snapshot that kept it as turnUsage", () => {
    const snapshot = new AgentCore().snapshot();
    const { turn: _dropped, ...fields } = snapshot.context;
    const older = { ...snapshot, context: { ...fields, turnUsage: { calls: 2, input_tokens: 5 } } };
    const restored = AgentCore.fromSnapshot(older as unknown as typeof snapshot);
    expect(restored.context.turn).toMatchObject({ usage: { calls: 2, input_tokens: 5 } });
    expect(Object.keys(restored.context)).not.toContain('turnUsage');
  });
});

describe('a budget on a session whose spending is unknown', () => {
  it('is refused on restore rather than never reached', () => {
    const unpriced = new AgentCore();
    unpriced.handleEvent(userInput('hi'));
    unpriced.handleEvent(response());
    expect(unpriced.context.usage.costUsd).toBeNull();
    const snapshot = unpriced.snapshot();
    const pricing = {
      'claude-sonnet-5-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
    };
    expect(() => AgentCore.fromSnapshot(snapshot, { pricing, maxBudgetUsd: 1 })).toThrow(
      /^maxBudgetUsd cannot be kept: what this agent has spent so far is unknown/,
    );
    expect(AgentCore.fromSnapshot(snapshot, { pricing }).context.usage.calls).toBe(1);
  });
});

describe('maxTurns', () => {
  /** Feeds a model that calls a tool in every response until the chart stops asking. */
  function runaway(config: AgentConfig): { core: AgentCore; calls: number; last: AgentAction[] } {
    const core = new AgentCore({ tools: readOnly, ...config });
    let actions = core.handleEvent(userInput('go'));
    let calls = 0;
    while (actionsOf(actions, 'SendLlmRequest').length > 0 && calls < 1_000) {
      calls++;
      core.handleEvent(response({ tool: true }));
      actions = runTools(core);
    }
    return { core, calls, last: actions };
  }

  it('stops a model that keeps calling tools after maxTurns calls, every call answered', () => {
    const { core, calls, last } = runaway({ maxTurns: 3 });
    expect(calls).toBe(3);
    expect(core.state).toBe('WaitingForUserInput');
    expect(actionsOf(last, 'DisplayError')).toEqual([
      {
        type: 'DisplayError',
        message:
          'Stopped: this turn made 3 model calls, the most maxTurns (3) allows; the last tool calls were answered. Send a message to go on.',
      },
    ]);
    expect(actionsOf(last, 'WaitForInput')).toHaveLength(1);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
    // A new turn has its own count.
    expect(actionsOf(core.handleEvent(userInput('go on')), 'SendLlmRequest')).toHaveLength(1);
  });

  it(`stops at ${DEFAULT_MAX_TURNS} calls by default, and never with null`, () => {
    expect(runaway({}).calls).toBe(DEFAULT_MAX_TURNS);
    expect(runaway({ maxTurns: null }).calls).toBe(1_000);
  });

  it('delivers input queued during the stopped turn, which starts the next one', () => {
    const core = new AgentCore({ tools: readOnly, maxTurns: 1 });
    core.handleEvent(userInput('first'));
    core.handleEvent(userInput('second, while busy'));
    core.handleEvent(response({ tool: true }));
    const actions = runTools(core);
    expect(actionsOf(actions, 'DisplayError')[0]?.message).toMatch(/maxTurns \(1\)/);
    expect(core.state).toBe('CallingLlm');
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'second, while busy' });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('lets the post-tools hook run before the turn stops, and reports a failed one', () => {
    const core = new AgentCore({ tools: [{ name: 'edit_file', mutating: true }], maxTurns: 1 });
    core.handleEvent(userInput('edit'));
    core.handleEvent({
      type: 'LlmCompleted',
      response: {
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_e', name: 'edit_file', input: {} }],
        },
        stopReason: 'tool_use',
      },
    });
    const ran = core.handleEvent({
      type: 'ToolCompleted',
      callId: 'toolu_e',
      outcome: { status: 'success', output: 'edited' },
    });
    expect(actionsOf(ran, 'RunPostToolsHook')).toHaveLength(1);
    const after = core.handleEvent({
      type: 'PostToolsHookCompleted',
      actionTaken: false,
      error: 'git: index.lock exists',
    });
    expect(actionsOf(after, 'DisplayError').map((action) => action.message)).toEqual([
      'The post-tools hook failed and was skipped: git: index.lock exists',
      expect.stringMatching(/^Stopped: this turn made 1 model calls/),
    ]);
    expect(actionsOf(after, 'SendLlmRequest')).toEqual([]);
    expect(core.state).toBe('WaitingForUserInput');
  });
});

describe('maxBudgetUsd', () => {
  const pricing = {
    'claude-sonnet-5-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  };
  // Each response: 1,000 in and 100 out, $0.0045.

  it('stops the turn once the session has spent it, and calls the model for no later input', () => {
    const core = new AgentCore({ tools: readOnly, pricing, maxBudgetUsd: 0.01 });
    let actions = core.handleEvent(userInput('go'));
    let calls = 0;
    while (actionsOf(actions, 'SendLlmRequest').length > 0) {
      calls++;
      core.handleEvent(response({ tool: true }));
      actions = runTools(core);
    }
    expect(calls).toBe(3); // $0.0045, $0.009, then $0.0135 ≥ $0.01
    expect(actionsOf(actions, 'DisplayError').map((action) => action.message)).toEqual([
      'Stopped: the session has spent $0.0135 on model calls, its maxBudgetUsd ($0.0100); the model was not called. Raise maxBudgetUsd to go on.',
    ]);
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);

    const later = core.handleEvent(userInput('one more thing'));
    expect(actionsOf(later, 'SendLlmRequest')).toEqual([]);
    expect(actionsOf(later, 'DisplayError')).toHaveLength(1);
    expect(actionsOf(later, 'WaitForInput')).toHaveLength(1);
    // Nothing lost: the input is in the transcript.
    expect(core.context.messages.at(-1)).toEqual({ role: 'user', content: 'one more thing' });
    expect(core.state).toBe('WaitingForUserInput');
  });

  it('takes queued input into the transcript once it is spent, each with its message', () => {
    const core = new AgentCore({ tools: readOnly, pricing, maxBudgetUsd: 0.004 });
    core.handleEvent(userInput('first'));
    core.handleEvent(userInput('queued 1'));
    core.handleEvent(userInput('queued 2'));
    const actions = core.handleEvent(response({ tool: true }));
    const rest = runTools(core);
    expect(actionsOf([...actions, ...rest], 'SendLlmRequest')).toEqual([]);
    expect(actionsOf(rest, 'DisplayError')).toHaveLength(3);
    expect(core.context.queue).toEqual([]);
    expect(core.context.messages.slice(-2)).toEqual([
      { role: 'user', content: 'queued 1' },
      { role: 'user', content: 'queued 2' },
    ]);
    expect(actionsOf(rest, 'WaitForInput')).toHaveLength(1);
  });

  it('needs a price for the model, and refuses limits that cannot be', () => {
    expect(() => new AgentCore({ maxBudgetUsd: 1 })).toThrow(
      "maxBudgetUsd needs the price of the model, and there is none for 'claude-sonnet-5-5'",
    );
    expect(() => new AgentCore({ model: 'claude-haiku-4-5', maxBudgetUsd: 1 })).not.toThrow();
    expect(() => new AgentCore({ maxTurns: 0 })).toThrow(
      'maxTurns must be a whole number of at least 1, or null for no limit; got 0',
    );
    expect(() => new AgentCore({ pricing, maxBudgetUsd: -1 })).toThrow(
      'maxBudgetUsd must be a positive number of US dollars; got -1',
    );
    // A number JSON cannot write is named as it is, not as JSON's null.
    expect(() => new AgentCore({ pricing, maxBudgetUsd: Number.NaN })).toThrow(
      'maxBudgetUsd must be a positive number of US dollars; got NaN',
    );
    expect(() => new AgentCore({ pricing: { x: { input: 1, output: 'free' } as never } })).toThrow(
      /^pricing\['x'\]\.output must be a non-negative number/,
    );
  });
});
