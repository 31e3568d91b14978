/**
 * Structured output in pure mode: a turn that asks for its answer in a form ends when the model
 * gives it with the answer's tool, asks once more when the model ends without it (or with input
 * that does not match), then gives up; the answer is the `OutputGiven` action.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
  type ContentBlock,
  type OutputSpec,
} from '../../src/index.js';
import { userInput } from '../support/events.js';

/** A turn's input with the form of its answer. */
function inputWithForm(text: string, output: OutputSpec): AgentEvent {
  return { type: 'UserInput', message: { role: 'user', content: text }, output };
}

const schema = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['approve', 'reject'] } },
  required: ['verdict'],
};

function respond(content: ContentBlock[], toolInputErrors?: Record<string, string>): AgentEvent {
  return {
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content },
      stopReason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
      ...(toolInputErrors ? { toolInputErrors } : {}),
    },
  };
}

const answer = (id: string, input: unknown): ContentBlock => ({
  type: 'tool_use',
  id,
  name: 'final_answer',
  input,
});

const typesOf = (actions: AgentAction[]) => actions.map((action) => action.type);

function core(options: { output?: boolean } = { output: true }) {
  const diagnostics: AgentDiagnostic[] = [];
  const agent = new AgentCore(
    {
      tools: [{ name: 'read_file', mutating: false }],
      ...(options.output ? { output: { schema } } : {}),
    },
    { onDiagnostic: (d) => diagnostics.push(d) },
  );
  return { agent, diagnostics };
}

describe('structured output in pure mode', () => {
  it('sends the answer tool last, and ends the turn with the answer given through it', () => {
    const { agent } = core();
    const [send] = agent.handleEvent(userInput('Review it.'));
    expect(send?.type === 'SendLlmRequest' && send.request.tools?.map((tool) => tool.name)).toEqual(
      ['final_answer'],
    );
    expect(send?.type === 'SendLlmRequest' && send.request.output).toEqual({
      name: 'final_answer',
      schema,
    });
    const actions = agent.handleEvent(respond([answer('t1', { verdict: 'approve' })]));
    expect(actions).toContainEqual({ type: 'OutputGiven', output: { verdict: 'approve' } });
    expect(typesOf(actions)).not.toContain('SendLlmRequest');
    expect(typesOf(actions)).not.toContain('ExecuteTools');
    expect(agent.state).toBe('WaitingForUserInput');
    expect(agent.context.output?.answer).toEqual({ value: { verdict: 'approve' } });
    expect(agent.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Answer received.' }],
    });
  });

  it('asks once more after a reply without the answer, then gives up', () => {
    const { agent } = core();
    agent.handleEvent(userInput('Review it.'));
    const again = agent.handleEvent(respond([{ type: 'text', text: 'Looks fine.' }]));
    const [send] = again.filter((action) => action.type === 'SendLlmRequest');
    expect(send?.request.messages.at(-1)).toEqual({
      role: 'user',
      content:
        'Give your final answer now by calling the final_answer tool, with the answer as its input.',
    });
    const ended = agent.handleEvent(respond([{ type: 'text', text: 'Still fine.' }]));
    expect(typesOf(ended)).not.toContain('SendLlmRequest');
    expect(ended).toContainEqual({
      type: 'DisplayError',
      message:
        'The model ended the turn without a valid answer from the final_answer tool, after being asked again; the turn has no output.',
    });
    expect(agent.state).toBe('WaitingForUserInput');
    expect(agent.context.output?.answer).toBeNull();
  });

  it('keeps the form and the misses in a snapshot: a restored turn gives up where it would have', () => {
    const { agent } = core();
    agent.handleEvent(userInput('Review it.'));
    agent.handleEvent(respond([{ type: 'text', text: 'Looks fine.' }]));
    const stored = JSON.parse(JSON.stringify(agent.snapshot())) as ReturnType<
      AgentCore['snapshot']
    >;
    const restored = AgentCore.fromSnapshot(stored, { output: { schema } });
    expect(restored.context.output?.form.name).toBe('final_answer');
    expect(restored.context.output?.misses).toBe(1);
    const ended = restored.handleEvent(respond([{ type: 'text', text: 'Still fine.' }]));
    expect(typesOf(ended)).toContain('DisplayError');
    expect(restored.state).toBe('WaitingForUserInput');
  });

  it('tells the model what does not match, and takes the answer it gives then', () => {
    const { agent } = core();
    agent.handleEvent(userInput('Review it.'));
    const retried = agent.handleEvent(
      respond([answer('t1', { verdict: 'maybe' })], { t1: 'verdict: Invalid option' }),
    );
    const [send] = retried.filter((action) => action.type === 'SendLlmRequest');
    expect(send?.request.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: 'invalid tool input: verdict: Invalid option',
          is_error: true,
        },
      ],
    });
    const done = agent.handleEvent(respond([answer('t2', { verdict: 'reject' })]));
    expect(done).toContainEqual({ type: 'OutputGiven', output: { verdict: 'reject' } });
  });

  it('runs the other calls of the answering response first, and takes one answer', () => {
    const { agent } = core();
    agent.handleEvent(userInput('Review it.'));
    const actions = agent.handleEvent(
      respond([
        { type: 'tool_use', id: 'r1', name: 'read_file', input: { path: 'a' } },
        answer('t1', { verdict: 'approve' }),
        answer('t2', { verdict: 'reject' }),
      ]),
    );
    expect(actions).toContainEqual({
      type: 'ExecuteTools',
      calls: [{ id: 'r1', name: 'read_file', input: { path: 'a' } }],
    });
    const done = agent.handleEvent({
      type: 'ToolCompleted',
      callId: 'r1',
      outcome: { status: 'success', output: 'text' },
    });
    expect(done).toContainEqual({ type: 'OutputGiven', output: { verdict: 'approve' } });
    expect(agent.context.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'r1', content: 'text' },
      { type: 'tool_result', tool_use_id: 't1', content: 'Answer received.' },
      {
        type: 'tool_result',
        tool_use_id: 't2',
        content: 'not taken: the answer was given by an earlier call of this response',
        is_error: true,
      },
    ]);
  });

  it('takes a form for one turn from its input, and refuses input with a form while busy', () => {
    const { agent, diagnostics } = core({ output: false });
    const [send] = agent.handleEvent(inputWithForm('Review it.', { schema, name: 'review' }));
    // read_file has no input schema in pure mode's spec, so only the answer's tool is sent.
    expect(send?.type === 'SendLlmRequest' && send.request.tools?.map((tool) => tool.name)).toEqual(
      ['review'],
    );
    const before = agent.snapshot();
    expect(agent.handleEvent(inputWithForm('And this?', { schema }))).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(['EVENT_NOT_ACCEPTED']);
    expect(agent.snapshot()).toEqual(before);
    agent.handleEvent(
      respond([{ type: 'tool_use', id: 't1', name: 'review', input: { verdict: 'approve' } }]),
    );
    expect(agent.context.output?.answer).toEqual({ value: { verdict: 'approve' } });
    // The next turn, without a form, ends with what the model says.
    const [next] = agent.handleEvent(userInput('Thanks.'));
    expect(next?.type === 'SendLlmRequest' && next.request.output).toBeUndefined();
    expect(agent.handleEvent(respond([{ type: 'text', text: 'Welcome.' }]))).not.toContainEqual(
      expect.objectContaining({ type: 'SendLlmRequest' }),
    );
  });

  it('refuses a form that is not an object’s schema, or shadows a tool', () => {
    expect(() => new AgentCore({ output: { schema: { type: 'string' } } })).toThrow(
      "output.schema must be the JSON Schema of an object ({ type: 'object', … })",
    );
    expect(
      () =>
        new AgentCore({
          tools: [{ name: 'final_answer', mutating: false }],
          output: { schema },
        }),
    ).toThrow("output.name 'final_answer' is one of the agent's tools");
  });
});

describe("structured output in the API's own format", () => {
  const form: OutputSpec = { schema, via: 'format' };

  it('sends the format, not an answer tool, and takes a final JSON text as the answer', () => {
    const agent = new AgentCore({
      tools: [{ name: 'look', mutating: false, inputSchema: { type: 'object' } }],
      request: { output_config: { effort: 'high' } },
    });
    const [send] = agent.handleEvent(inputWithForm('Review', form));
    expect(send).toMatchObject({ type: 'SendLlmRequest' });
    const request = (send as Extract<AgentAction, { type: 'SendLlmRequest' }>).request;
    expect(request.tools?.map((tool) => tool.name)).toEqual(['look']);
    expect(request.fields).toEqual({
      output_config: { effort: 'high', format: { type: 'json_schema', schema } },
    });
    expect(request.output).toEqual({ name: 'final_answer', schema, via: 'format' });
    const actions = agent.handleEvent(respond([{ type: 'text', text: '{"verdict":"approve"}' }]));
    expect(actions).toContainEqual({ type: 'OutputGiven', output: { verdict: 'approve' } });
    expect(agent.state).toBe('WaitingForUserInput');
    // The configuration's own fields are not changed by the turn's format.
    expect(agent.context.config.requestFields).toEqual({ output_config: { effort: 'high' } });
  });

  it('asks again, saying why, when the caller found the text does not match; then gives up', () => {
    const agent = new AgentCore({});
    agent.handleEvent(inputWithForm('Review', form));
    const mismatch: AgentEvent = {
      type: 'LlmCompleted',
      response: {
        message: { role: 'assistant', content: [{ type: 'text', text: '{"verdict":"maybe"}' }] },
        stopReason: 'end_turn',
        outputError: 'it does not match the schema:\n- verdict: Invalid option',
      },
    };
    expect(typesOf(agent.handleEvent(mismatch))).toContain('SendLlmRequest');
    expect(agent.context.messages.at(-1)?.content).toBe(
      'Your final answer must be JSON in the required format (it does not match the schema:\n- verdict: Invalid option). Give it now, and nothing else.',
    );
    const second = agent.handleEvent(respond([{ type: 'text', text: 'not JSON' }]));
    expect(typesOf(second)).toContain('DisplayError');
    expect(typesOf(second)).not.toContain('OutputGiven');
    expect(agent.state).toBe('WaitingForUserInput');
  });

  it('refuses a form whose via is neither tool nor format', () => {
    const diagnostics: AgentDiagnostic[] = [];
    const agent = new AgentCore({}, { onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
    expect(agent.handleEvent(inputWithForm('x', { schema, via: 'json' as never }))).toEqual([]);
    expect(diagnostics.at(-1)?.message).toMatch(/output\.via must be 'tool' .* or 'format'/);
  });
});
