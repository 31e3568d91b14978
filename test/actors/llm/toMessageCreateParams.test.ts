import { describe, expect, it } from 'vitest';
import { toMessageCreateParams } from '../../../src/actors/llm/toMessageCreateParams.js';
import type { Message } from '../../../src/machine/messages.js';

describe('toMessageCreateParams', () => {
  it('maps maxTokens to max_tokens, always streams and leaves out what was not given', () => {
    expect(
      toMessageCreateParams({
        model: 'm',
        maxTokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        promptCache: 'off',
      }),
    ).toEqual({
      model: 'm',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
  });

  it('marks the cache by default: the end of the system prompt and the request’s last block', () => {
    expect(
      toMessageCreateParams({
        model: 'm',
        maxTokens: 64,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).toEqual({
      model: 'm',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      cache_control: { type: 'ephemeral' },
    });
  });

  it('leaves out an empty system prompt and an empty tool list', () => {
    const params = toMessageCreateParams({
      model: 'm',
      maxTokens: 1,
      system: '',
      tools: [],
      messages: [],
    });

    expect('system' in params).toBe(false);
    expect('tools' in params).toBe(false);
  });

  it('passes the container id of an earlier response as container', () => {
    const params = toMessageCreateParams({
      model: 'm',
      maxTokens: 1,
      messages: [],
      container: 'container_1',
    });

    expect(params.container).toBe('container_1');
  });

  it('passes messages through untouched, blocks it does not know included', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 'sig==' },
          {
            type: 'server_tool_use',
            id: 'srvtoolu_1',
            name: 'web_search',
            input: { query: 'q' },
          },
          { type: 'redacted_thinking', data: 'abc' },
        ],
      },
    ];

    expect(toMessageCreateParams({ model: 'm', maxTokens: 1, messages }).messages).toBe(messages);
  });

  it('maps tools to name, description and input_schema', () => {
    const params = toMessageCreateParams({
      model: 'm',
      maxTokens: 1,
      messages: [],
      tools: [
        { name: 'a', input_schema: { type: 'object' } },
        {
          name: 'b',
          description: 'B',
          input_schema: { type: 'object', required: ['x'] },
        },
      ],
    });

    expect(params.tools).toEqual([
      { name: 'a', input_schema: { type: 'object' } },
      {
        name: 'b',
        description: 'B',
        input_schema: { type: 'object', required: ['x'] },
      },
    ]);
  });
});
