/** The tool calls an assistant message asks for, in order, for the subjects that route on them. */
import type { Message, ToolCall } from '../../src/index.js';

export function toolCallsOf(message: Message | undefined): ToolCall[] {
  if (message === undefined || typeof message.content === 'string') return [];
  const calls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_use') {
      const use = block as ToolCall & { type: 'tool_use' };
      calls.push({ id: use.id, name: use.name, input: use.input });
    }
  }
  return calls;
}
