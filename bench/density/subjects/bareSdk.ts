/**
 * (a) The floor: the agent turn written directly on `@anthropic-ai/sdk`, the way its README
 * streams a reply: `client.messages.stream(...)`, a `text` listener, `finalMessage()`, the tool
 * run, the second stream. No state machine, no validation, no retries: what any agent built on
 * the SDK pays at least.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import * as turn from '../agentTurn.js';
import { API_KEY, type DensitySubject } from '../densitySubject.js';

function runTool(input: unknown): string {
  const name = (input as { name?: unknown }).name;
  if (typeof name !== 'string') throw new Error(`${turn.TOOL_NAME}: input.name must be a string`);
  return turn.readNote(name);
}

export const bareSdk: DensitySubject = {
  createAgent(baseURL) {
    const client = new Anthropic({ baseURL, apiKey: API_KEY, maxRetries: 0 });
    const messages: MessageParam[] = [];
    let textSeen = 0;
    return {
      async runTurn() {
        messages.push({ role: 'user', content: turn.PROMPT });
        for (;;) {
          const stream = client.messages.stream({
            model: turn.MODEL,
            max_tokens: turn.MAX_TOKENS,
            messages,
            tools: [turn.TOOL_DEFINITION],
          });
          stream.on('text', (text) => {
            textSeen += text.length;
          });
          const message = await stream.finalMessage();
          messages.push({ role: 'assistant', content: message.content });
          const results: ToolResultBlockParam[] = [];
          for (const block of message.content) {
            if (block.type !== 'tool_use') continue;
            results.push({
              type: 'tool_result',
              tool_use_id: block.id,
              content: runTool(block.input),
            });
          }
          if (results.length === 0) return;
          messages.push({ role: 'user', content: results });
        }
      },
      check: () => turn.turnProblem(textSeen, messages.length),
    };
  },
};
