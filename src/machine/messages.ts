/**
 * What the chart talks to the model in: messages in the Anthropic Messages API shape, the request
 * it sends, the response and the failures it gets back, and tool calls with their outcomes.
 * Everything here is plain JSON, so a snapshot of the chart can be stored and restored anywhere.
 */

/**
 * A content block of a message. The shapes the chart itself reads are `text`, `tool_use` and
 * `tool_result`; every other block the API sends (`thinking`, `redacted_thinking`,
 * `server_tool_use`, `web_search_tool_result`, …) is kept as it came and sent back unchanged.
 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | OtherBlock;

/** Plain text from the user or the model. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A tool call the model asked for. `input` is the parsed JSON object. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/**
 * The answer to one `tool_use`, sent back in a user message.
 *
 * @example
 * const result: ToolResultBlock = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'file text' };
 */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | ToolResultContent[];
  is_error?: boolean;
}

/**
 * A block a tool result may hold: text, an image, a document, or any other block the API
 * accepts there (`search_result`, …), kept as given.
 */
export type ToolResultContent = TextBlock | ImageBlock | DocumentBlock | OtherBlock;

/**
 * An image the model looks at: base64 data of a JPEG, PNG, GIF or WebP, or a URL.
 *
 * @example
 * const image: ImageBlock = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: bytes.toString('base64') } };
 */
export interface ImageBlock {
  type: 'image';
  source:
    { type: 'base64'; media_type: ImageMediaType; data: string } | { type: 'url'; url: string };
}

/**
 * The image types the Messages API reads.
 *
 * @example
 * IMAGE_MEDIA_TYPES.includes('image/png'); // true
 */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * A document the model reads: a PDF as base64 data or a URL, or plain text.
 *
 * @example
 * const pdf: DocumentBlock = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
 */
export interface DocumentBlock {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'url'; url: string };
  title?: string;
}

/** Extended thinking. Its `signature` must go back to the API unchanged. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the API returned encrypted. Sent back unchanged. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** Any other block the API may send (server-side tools, citations, future types). Kept as-is. */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

/**
 * One message of the conversation, exactly as the Messages API takes it.
 *
 * @example
 * const message: Message = { role: 'user', content: 'List the files' };
 */
export interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

/** A tool call of the model's response: the `tool_use` block without its `type`. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * How one tool call ended. A failure is data the model reads, not an exception. A success holds
 * either an `output` (a string, or JSON data the model reads as its JSON text) or `content`, the
 * blocks the model reads as they are (text, images, documents). It may name the files the call
 * changed (`changedPaths`, relative to the workspace with `/` separators): the post-tools hook
 * commits those and nothing else. The model never sees them.
 *
 * @example
 * const ok: ToolOutcome = { status: 'success', output: 'hello' };
 * const wrote: ToolOutcome = { status: 'success', output: "created 'a.txt'", changedPaths: ['a.txt'] };
 * const image: ToolOutcome = { status: 'success', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] };
 * const failed: ToolOutcome = { status: 'error', error: { message: 'no such file: a.txt' } };
 */
export type ToolOutcome =
  | { status: 'success'; output: unknown; changedPaths?: string[] }
  | { status: 'success'; content: ToolResultContent[]; changedPaths?: string[] }
  | { status: 'error'; error: { message: string } };

/** Why a model response ended, as the Messages API reports it. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | (string & {});

/** Token counts reported by the API. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  [key: string]: unknown;
}

/**
 * Why the model stopped, in more detail than the stop reason, as the API reports it (for a
 * refusal: `{ type: 'refusal', category, explanation }`).
 */
export interface LlmStopDetails {
  type: string;
  [key: string]: unknown;
}

/**
 * The server-side container a response used (the code execution tool runs in one). Its `id`
 * goes back with the next request, so the work in it carries over.
 */
export interface LlmContainer {
  id: string;
  expires_at?: string;
  [key: string]: unknown;
}

/**
 * A complete model response: the assistant message (whose `tool_use` blocks are the tool calls),
 * why it stopped and what it cost, and what the API said about it besides (as the SDK's
 * `finalMessage()` has it; a field the API left out or sent as `null` is absent).
 *
 * @example
 * const response: LlmResponse = {
 *   message: { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] },
 *   stopReason: 'end_turn',
 *   id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
 *   model: 'claude-sonnet-5-5',
 * };
 */
export interface LlmResponse {
  message: Message;
  stopReason?: StopReason;
  usage?: Usage;
  /**
   * Tool calls whose input never parsed (for example cut off by `max_tokens`), by `tool_use` id,
   * with the reason. They are not run; the model is told why in their `tool_result`.
   */
  toolInputErrors?: Record<string, string>;
  /**
   * For a turn answered in the API's structured-output format (`OutputSpec.via: 'format'`): why
   * the final text is not the answer (not JSON, or not matching the schema), as the model call's
   * caller found it.
   */
  outputError?: string;
  /** The API's id of the message (`msg_…`). */
  id?: string;
  /** The model that answered. */
  model?: string;
  /** The custom stop sequence that ended the response (`stopReason` is `stop_sequence`). */
  stopSequence?: string;
  /** Why the model stopped, in detail (a refusal's policy category). */
  stopDetails?: LlmStopDetails;
  /** The server-side container the response used; the chart sends its id back next time. */
  container?: LlmContainer;
}

/**
 * The kinds of model-call failure the chart tells apart. `auth` and `invalid_request` are never
 * retried; the others are retried while attempts are left.
 *
 * @example
 * LLM_ERROR_KINDS.includes(error.kind); // true for every LlmError the chart accepts
 */
export const LLM_ERROR_KINDS = [
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'timeout',
  'auth',
  'invalid_request',
  'unknown',
] as const;

/** One of {@link LLM_ERROR_KINDS}. */
export type LlmErrorKind = (typeof LLM_ERROR_KINDS)[number];

/**
 * A failed model call.
 *
 * @example
 * const error: LlmError = { kind: 'rate_limit', message: '429 Too Many Requests', status: 429, retryAfterMs: 2000 };
 */
export interface LlmError {
  kind: LlmErrorKind;
  message: string;
  status?: number;
  /** Wait at least this long before the next attempt (from a `Retry-After` header). */
  retryAfterMs?: number;
}

/**
 * What the chart sends to the model: the request parameters of the Messages API.
 *
 * @example
 * const request: LlmRequest = { model: 'claude-sonnet-5-5', maxTokens: 4096, messages: [{ role: 'user', content: 'hi' }] };
 */
export interface LlmRequest {
  model: string;
  maxTokens: number;
  system?: string | SystemBlock[];
  messages: Message[];
  tools?: ToolDefinition[];
  /** The id of the server-side container an earlier response used, to keep working in it. */
  container?: string;
  /**
   * The other fields of the Messages API request the configuration sets (`thinking`,
   * `output_config`, `metadata`, `stop_sequences`, `tool_choice`, …), sent as they are.
   */
  fields?: Readonly<Record<string, unknown>>;
  /** How the request marks what the API may cache (see `PromptCachePolicy`); default `'auto'`. */
  promptCache?: PromptCachePolicy;
  /**
   * The tool the turn's final answer is given with and the answer's JSON Schema (its definition
   * is in `tools` too): a caller checks that call's input against the schema, and reports a
   * mismatch in the response's `toolInputErrors`, as for any input that fails.
   */
  output?: { name: string; schema: Record<string, unknown>; via?: 'format' };
}

/**
 * Where a request marks the prompt cache:
 *
 * - `'auto'`: the end of the system prompt (stable for the whole session, and across sessions
 *   with the same tools and system prompt) and the request's last block (the API's automatic
 *   breakpoint, `cache_control` at the top level), so each model call reads what the one before
 *   it wrote: the conversation is paid for once, then read at a tenth of the price;
 * - `'off'`: no marks but those the caller put in the system blocks or messages themselves.
 *
 * @example
 * const policy: PromptCachePolicy = 'auto';
 */
export type PromptCachePolicy = 'auto' | 'off';

/**
 * A prompt-cache breakpoint: the API caches the request up to the block that carries it, for
 * five minutes (or `1h`).
 *
 * @example
 * const mark: CacheControl = { type: 'ephemeral', ttl: '1h' };
 */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/**
 * A block of the system prompt, given as blocks to place cache breakpoints yourself.
 *
 * @example
 * const system: SystemBlock[] = [{ type: 'text', text: 'You are a careful coding agent.', cache_control: { type: 'ephemeral' } }];
 */
export interface SystemBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

/**
 * A tool as the model sees it (name, description, JSON Schema of its input).
 *
 * @example
 * const tool: ToolDefinition = { name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } };
 */
export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/**
 * The text of a message: its text blocks joined, other blocks left out.
 *
 * @example
 * messageText({ role: 'assistant', content: [{ type: 'text', text: 'Hi' }, { type: 'tool_use', id: 't1', name: 'ls', input: {} }] }); // 'Hi'
 */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  let text = '';
  for (const block of message.content) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
  }
  return text;
}
