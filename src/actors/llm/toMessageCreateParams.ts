/**
 * The chart's {@link LlmRequest} as the SDK's streaming request parameters.
 */

import type {
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { LlmRequest, ToolDefinition } from '../../machine/index.js';

/**
 * Maps an {@link LlmRequest} to `client.messages.create` parameters with `stream: true`:
 * `maxTokens` → `max_tokens`; `system`, `tools` and `container` only when given (an empty tool list is left
 * out, which the API treats the same and some proxies reject); messages unchanged.
 *
 * Messages are passed through as they are because the chart keeps them in the API's wire shape
 * (docs/architecture.md, Data): thinking blocks with their signatures, server-tool blocks and any block the
 * chart does not read must reach the API byte for byte. The SDK's types only list the blocks it
 * knows, so the chart's wider `OtherBlock` needs a cast here; nothing is copied or rewritten.
 *
 * @example
 * const params = toMessageCreateParams({
 *   model: 'claude-sonnet-5-5',
 *   maxTokens: 4096,
 *   system: 'You are a careful coding agent.',
 *   messages: [{ role: 'user', content: 'List the files' }],
 *   tools: [{ name: 'list_files', input_schema: { type: 'object', properties: {} } }],
 * });
 * // { model: 'claude-sonnet-5-5', max_tokens: 4096, system: '…', messages: […], tools: […], stream: true }
 */
export function toMessageCreateParams(request: LlmRequest): MessageCreateParamsStreaming {
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: request.messages as unknown as MessageParam[],
    stream: true,
  };
  if (request.system !== undefined && request.system !== '') params.system = request.system;
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map(toTool);
  }
  if (request.container !== undefined) params.container = request.container;
  return params;
}

function toTool(tool: ToolDefinition): Tool {
  const result: Tool = {
    name: tool.name,
    input_schema: tool.input_schema,
  };
  if (tool.description !== undefined) result.description = tool.description;
  return result;
}
