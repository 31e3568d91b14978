import { describe, expect, it } from 'vitest';
import type { LlmResponse, Message } from '../../src/index.js';
import { deduplicateToolUseIds } from '../../src/machine/deduplicateToolUseIds.js';

const call = (id: string, command: string) =>
  ({ type: 'tool_use', id, name: 'bash', input: { command } }) as const;

const response = (...calls: ReturnType<typeof call>[]): LlmResponse => ({
  message: { role: 'assistant', content: [{ type: 'text', text: 'Running.' }, ...calls] },
  stopReason: 'tool_use',
});

const earlierTurn: Message[] = [
  { role: 'user', content: 'go' },
  { role: 'assistant', content: [call('t1', 'ls')] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }] },
];

describe('deduplicateToolUseIds', () => {
  it('returns a response whose ids are all new as it is', () => {
    const given = response(call('t1', 'ls'), call('t2', 'pwd'));
    const { response: recorded, toolRuns } = deduplicateToolUseIds(given, []);
    expect(recorded).toBe(given);
    expect(toolRuns.map((run) => [run.call.id, run.status])).toEqual([
      ['t1', 'pending'],
      ['t2', 'pending'],
    ]);
  });

  it('renames a repeat within one response, does not run it, and says why in its outcome', () => {
    const { response: recorded, toolRuns } = deduplicateToolUseIds(
      response(call('t1', 'ls'), call('t1', 'rm -rf build')),
      [],
    );
    expect(recorded.message.content).toEqual([
      { type: 'text', text: 'Running.' },
      call('t1', 'ls'),
      call('t1_2', 'rm -rf build'),
    ]);
    expect(toolRuns).toEqual([
      { call: { id: 't1', name: 'bash', input: { command: 'ls' } }, status: 'pending' },
      {
        call: { id: 't1_2', name: 'bash', input: { command: 'rm -rf build' } },
        status: 'done',
        outcome: {
          status: 'error',
          error: {
            message:
              "not run: this call repeated the tool_use id 't1' of an earlier call in the same response, so the two could not be told apart; its id was changed to 't1_2'. Call the tool again if you meant a second call.",
          },
        },
      },
    ]);
  });

  it('renames an id an earlier message used, and runs the call', () => {
    const { response: recorded, toolRuns } = deduplicateToolUseIds(
      response(call('t1', 'pwd')),
      earlierTurn,
    );
    expect(toolRuns).toEqual([
      { call: { id: 't1_2', name: 'bash', input: { command: 'pwd' } }, status: 'pending' },
    ]);
    expect(recorded.message.content).toContainEqual(call('t1_2', 'pwd'));
  });

  it('picks the first free suffix, past ids the transcript or the response already hold', () => {
    const transcript: Message[] = [
      ...earlierTurn,
      { role: 'assistant', content: [call('t1_2', 'ls')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1_2', content: '' }] },
    ];
    const { toolRuns } = deduplicateToolUseIds(
      response(call('t1', 'a'), call('t1_3', 'b'), call('t1', 'c')),
      transcript,
    );
    expect(toolRuns.map((run) => [run.call.id, run.status])).toEqual([
      ['t1_4', 'pending'],
      ['t1_3', 'pending'],
      ['t1_5', 'done'],
    ]);
  });

  it('moves the input error of a renamed call to its new id', () => {
    const given: LlmResponse = {
      ...response(call('t1', '')),
      toolInputErrors: { t1: 'Unexpected end of JSON input' },
    };
    const { response: recorded, toolRuns } = deduplicateToolUseIds(given, earlierTurn);
    expect(recorded.toolInputErrors).toEqual({ t1_2: 'Unexpected end of JSON input' });
    expect(toolRuns[0]).toMatchObject({
      call: { id: 't1_2' },
      status: 'done',
      outcome: { error: { message: 'invalid tool input: Unexpected end of JSON input' } },
    });
  });
});
