/**
 * Structured output in actor mode, through the real SDK against the local Messages API server:
 * `agent.run` with a zod schema resolves with the typed answer the model gave with the
 * `final_answer` tool; an answer that does not match is sent back with what to fix (checked
 * against the schema where the response arrives); a turn without one rejects with `NO_OUTPUT`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentStatechartError } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('output-');

const Review = z.object({
  verdict: z.enum(['approve', 'reject']),
  reasons: z.array(z.string()).min(1),
});

const answer = (input: Record<string, unknown>) =>
  reply([{ type: 'tool_use', name: 'final_answer', input }]);

/** The blocks of the last message of a request the server received. */
function lastMessageOf(body: unknown): unknown {
  return (body as { messages: Array<{ content: unknown }> }).messages.at(-1)?.content;
}

describe('structured output', () => {
  it('run resolves with the typed answer, given with the final_answer tool', async () => {
    const agent = await scripted.start([answer({ verdict: 'approve', reasons: ['tests pass'] })]);
    const outputs: unknown[] = [];
    agent.on('output', ({ value }) => outputs.push(value));
    const review = await agent.run('Review the change.', { output: Review, timeoutMs: 30_000 });
    expect(review).toEqual({ verdict: 'approve', reasons: ['tests pass'] });
    expect(outputs).toEqual([review]);
    const [request] = scripted.server().requests;
    const tools = request?.body.tools as Array<{ name: string; input_schema: unknown }>;
    expect(tools.map((tool) => tool.name)).toEqual(['look_up', 'final_answer']);
    expect(tools[1]?.input_schema).toMatchObject({
      type: 'object',
      required: ['verdict', 'reasons'],
    });
    expect(scripted.server().requests).toHaveLength(1);
  });

  it('sends an answer that does not match back with what to fix, and takes the next', async () => {
    const agent = await scripted.start([
      answer({ verdict: 'maybe', reasons: [] }),
      answer({ verdict: 'reject', reasons: ['no tests'] }),
    ]);
    const review = await agent.run('Review the change.', { output: Review, timeoutMs: 30_000 });
    expect(review.verdict).toBe('reject');
    const [, second] = scripted.server().requests;
    const [result] = lastMessageOf(second?.body) as Array<{ content: string; is_error: boolean }>;
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/^invalid tool input: the answer does not match its schema:\n/);
    expect(result?.content).toContain('- verdict: ');
    expect(result?.content).toContain('- reasons: ');
    expect(result?.content).toContain('Fix these fields and call final_answer again.');
  });

  it('rejects with NO_OUTPUT when the model gives no answer though asked again', async () => {
    const agent = await scripted.start([reply('It looks fine.'), reply('Really, it is fine.')]);
    const run = agent.run('Review the change.', { output: Review, timeoutMs: 30_000 });
    await expect(run).rejects.toThrow(AgentStatechartError);
    await expect(run).rejects.toMatchObject({
      code: 'NO_OUTPUT',
      message: expect.stringContaining(
        'without a valid answer from the final_answer tool',
      ) as string,
    });
    const [, second] = scripted.server().requests;
    expect(lastMessageOf(second?.body)).toBe(
      'Give your final answer now by calling the final_answer tool, with the answer as its input.',
    );
  });

  it('takes the form from createAgent for every turn', async () => {
    const agent = await scripted.start(
      [
        answer({ verdict: 'approve', reasons: ['ok'] }),
        answer({ verdict: 'reject', reasons: ['no'] }),
      ],
      { output: Review },
    );
    expect(await agent.run('First.', { timeoutMs: 30_000 })).toEqual({
      verdict: 'approve',
      reasons: ['ok'],
    });
    agent.send('Second.');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(agent.context.output?.answer).toEqual({ value: { verdict: 'reject', reasons: ['no'] } });
  });

  it('run without any form resolves with the text of the last response', async () => {
    const agent = await scripted.start([reply('Plain words.')]);
    expect(await agent.run('Say something.', { timeoutMs: 30_000 })).toBe('Plain words.');
  });

  describe("in the API's own format (via: 'format')", () => {
    it('asks for the format instead of a tool, and takes the final text as the typed answer', async () => {
      const agent = await scripted.start([
        reply([{ type: 'tool_use', name: 'look_up', input: { word: 'diff' } }]),
        reply('{"verdict":"approve","reasons":["looked it up"]}'),
      ]);
      const review = await agent.run('Review the change.', {
        output: { schema: Review, via: 'format' },
        timeoutMs: 30_000,
      });
      // Typed by the zod schema: reasons is a string array.
      expect(review.reasons.join()).toBe('looked it up');
      expect(review).toEqual({ verdict: 'approve', reasons: ['looked it up'] });
      const [first, second] = scripted.server().requests;
      expect(first?.body.tools?.map((tool) => tool.name)).toEqual(['look_up']);
      expect(first?.body.output_config).toEqual({
        format: {
          type: 'json_schema',
          schema: expect.objectContaining({
            type: 'object',
            required: ['verdict', 'reasons'],
          }) as unknown,
        },
      });
      expect(second?.body.output_config).toEqual(first?.body.output_config);
    });

    it('keeps the effort the configuration sets beside the format', async () => {
      const agent = await scripted.start([reply('{"verdict":"reject","reasons":["no"]}')], {
        request: { output_config: { effort: 'low' } },
      });
      await agent.run('Review.', { output: { schema: Review, via: 'format' }, timeoutMs: 30_000 });
      const [first] = scripted.server().requests;
      expect(first?.body.output_config).toMatchObject({
        effort: 'low',
        format: { type: 'json_schema' },
      });
    });

    it('asks once more, saying why, when the final text does not match; then takes the answer', async () => {
      const agent = await scripted.start([
        reply('{"verdict":"maybe","reasons":[]}'),
        reply('{"verdict":"reject","reasons":["unclear"]}'),
      ]);
      const review = await agent.run('Review.', {
        output: { schema: Review, via: 'format' },
        timeoutMs: 30_000,
      });
      expect(review.verdict).toBe('reject');
      const [, second] = scripted.server().requests;
      const asked = lastMessageOf(second?.body);
      expect(asked).toMatch(
        /^Your final answer must be JSON in the required format \(it does not match the schema:\n- verdict: /,
      );
    });

    it('rejects with NO_OUTPUT when the final text is not JSON twice', async () => {
      const agent = await scripted.start([reply('Looks fine to me.'), reply('Still fine.')]);
      const error = await agent
        .run('Review.', { output: { schema: Review, via: 'format' }, timeoutMs: 30_000 })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(AgentStatechartError);
      expect((error as AgentStatechartError).code).toBe('NO_OUTPUT');
      expect(lastMessageOf(scripted.server().requests[1]?.body)).toContain(
        '(the final text is not JSON)',
      );
    });
  });
});
