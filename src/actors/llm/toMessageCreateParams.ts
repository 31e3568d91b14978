/**
 * The chart's {@link LlmRequest} as the SDK's streaming request parameters.
 */

import type {
  MessageCreateParamsBase,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { AnthropicBeta } from '@anthropic-ai/sdk/resources/beta/beta';
import type { LlmRequest, ToolDefinition } from '../../machine/index.js';

/**
 * The fields of a Messages API request a caller may set through the `request` option: all but
 * those the chart sets itself.
 *
 * @example
 * const fields: LlmRequestFields = { thinking: { type: 'enabled', budget_tokens: 4096 }, metadata: { user_id: 'u-42' } };
 */
export type LlmRequestFields = Omit<
  MessageCreateParamsBase,
  'model' | 'max_tokens' | 'messages' | 'system' | 'tools' | 'stream' | 'container'
> & {
  /**
   * Beta features to turn on, sent as the `anthropic-beta` header (see {@link toRequestHeaders}),
   * not in the body.
   */
  betas?: AnthropicBeta[];
};

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
  const params: MessageCreateParamsStreaming & { betas?: unknown } = {
    // The configured fields first: the chart's own below always win.
    ...(request.fields as Partial<MessageCreateParamsStreaming> | undefined),
    model: request.model,
    max_tokens: request.maxTokens,
    messages: request.messages as unknown as MessageParam[],
    stream: true,
  };
  const cached = request.promptCache !== 'off';
  const system = systemOf(request.system, cached);
  if (system !== undefined) params.system = system;
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map(toTool);
  }
  if (request.container !== undefined) params.container = request.container;
  // Betas travel as a header (toRequestHeaders), not in the body.
  delete params.betas;
  // The API's own breakpoint on the request's last block: each call reads what the last wrote.
  if (cached && params.cache_control === undefined) params.cache_control = EPHEMERAL;
  return params;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The headers a request sends besides the SDK's own: `anthropic-beta` for the betas of the
 * request option, or `undefined` when there are none. For a caller sending
 * {@link toMessageCreateParams}'s body with a client of its own.
 *
 * @example
 * const headers = toRequestHeaders(request); // { 'anthropic-beta': 'context-1m-2025-08-07' }
 * await client.messages.create(toMessageCreateParams(request), { headers });
 */
export function toRequestHeaders(request: LlmRequest): Record<string, string> | undefined {
  const betas = (request.fields as LlmRequestFields | undefined)?.betas;
  if (betas === undefined || betas.length === 0) return undefined;
  return { 'anthropic-beta': betas.join(',') };
}

/**
 * The system prompt as the API takes it; with the `auto` cache policy, marked as a breakpoint at
 * its end (the tools and the system prompt, stable for the whole session, are cached apart from
 * the conversation), unless the caller marked its blocks already.
 */
function systemOf(
  system: LlmRequest['system'],
  cached: boolean,
): MessageCreateParamsStreaming['system'] {
  if (system === undefined || system === '') return undefined;
  const marked = typeof system !== 'string' && system.some((block) => block.cache_control);
  if (!cached || marked) {
    return typeof system === 'string' ? system : system.map((block) => ({ ...block }));
  }
  const blocks = typeof system === 'string' ? [{ type: 'text' as const, text: system }] : system;
  return blocks.map((block, index) =>
    index === blocks.length - 1 ? { ...block, cache_control: EPHEMERAL } : { ...block },
  );
}

function toTool(tool: ToolDefinition): Tool {
  const result: Tool = {
    name: tool.name,
    input_schema: tool.input_schema,
  };
  if (tool.description !== undefined) result.description = tool.description;
  return result;
}
