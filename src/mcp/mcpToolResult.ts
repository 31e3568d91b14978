/**
 * What an MCP tool call answered, as the model reads it: the result's content items become
 * `tool_result` blocks (text, images, documents), never JSON text, and `isError` becomes the
 * call's error.
 */
import {
  IMAGE_MEDIA_TYPES,
  type ImageMediaType,
  type ToolResultContent,
} from '../machine/index.js';
import { toolContent, type ToolContent } from '../actors/index.js';

/** The API refuses an image whose base64 data passes 5 MB. */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/**
 * An MCP `CallToolResult`, as far as this package reads it (the protocol's own type has more).
 *
 * @example
 * const result: McpCallResult = { content: [{ type: 'text', text: 'done' }] };
 */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * The tool's answer for `runToolCall`: content blocks for the model, or a thrown `Error` whose
 * message the model reads when the server says the call failed (`isError`).
 *
 * @example
 * toToolAnswer({ content: [{ type: 'image', data, mimeType: 'image/png' }] }); // toolContent(image block)
 * toToolAnswer({ isError: true, content: [{ type: 'text', text: 'no such issue' }] }); // throws 'no such issue'
 */
export function toToolAnswer(result: McpCallResult): ToolContent {
  const items = Array.isArray(result.content) ? result.content : [];
  // The API refuses an empty text block.
  const blocks = items.map(toBlock).filter((block) => block.type !== 'text' || block.text !== '');
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  if (result.isError === true) {
    const text = blocks
      .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
      .join('\n');
    throw new Error(text === '' ? 'the MCP server reported an error without a message' : text);
  }
  return blocks.length === 0 ? toolContent(text('(no output)')) : toolContent(...blocks);
}

function toBlock(item: unknown): ToolResultContent {
  const fields = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  switch (fields.type) {
    case 'text':
      return text(typeof fields.text === 'string' ? fields.text : '');
    case 'image':
      return image(fields.data, fields.mimeType);
    case 'audio':
      return text(`[audio (${String(fields.mimeType)}) the model cannot hear was left out]`);
    case 'resource_link':
      return text(resourceLine(fields));
    case 'resource':
      return resource(fields.resource);
    default:
      return text(`[a ${String(fields.type)} item the model cannot read was left out]`);
  }
}

function image(data: unknown, mimeType: unknown): ToolResultContent {
  if (typeof data !== 'string' || !isImageType(mimeType)) {
    return text(`[an image of type ${String(mimeType)} the model cannot read was left out]`);
  }
  if (data.length > MAX_IMAGE_BASE64) {
    return text(`[an image of ${data.length} base64 bytes, more than the API takes, was left out]`);
  }
  return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
}

/** An embedded resource: its text, a PDF as a document, an image as an image. */
function resource(value: unknown): ToolResultContent {
  const fields = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const uri = typeof fields.uri === 'string' ? fields.uri : '';
  if (typeof fields.text === 'string') return text(`${uri}\n${fields.text}`);
  if (typeof fields.blob === 'string') {
    if (fields.mimeType === 'application/pdf') {
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: fields.blob },
        title: uri,
      };
    }
    if (isImageType(fields.mimeType)) return image(fields.blob, fields.mimeType);
  }
  return text(
    `[the resource ${uri} (${String(fields.mimeType)}) the model cannot read was left out]`,
  );
}

function resourceLine(fields: Record<string, unknown>): string {
  const description = typeof fields.description === 'string' ? `: ${fields.description}` : '';
  return `resource ${String(fields.name ?? fields.uri)} at ${String(fields.uri)}${description}`;
}

function isImageType(value: unknown): value is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly unknown[]).includes(value);
}

function text(value: string): ToolResultContent {
  return { type: 'text', text: value };
}
