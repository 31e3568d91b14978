import type { ToolResultContent } from '../../machine/index.js';

/** Marks a tool's return value as content blocks; a symbol, so no JSON value can pass for one. */
const CONTENT = Symbol.for('agent-statechart.toolContent');

/**
 * A tool result the model reads as content blocks rather than as text: images, documents, text,
 * or any block the API takes in a `tool_result`. What a tool's `execute` returns to show the
 * model a screenshot, a chart or a PDF. A plain string or JSON value stays the simpler answer
 * for everything else.
 *
 * @example
 * const screenshot = defineTool({
 *   name: 'screenshot',
 *   description: 'Take a screenshot of the page',
 *   input: z.object({ url: z.string() }),
 *   mutating: false,
 *   async execute({ url }) {
 *     const png = await capture(url);
 *     return toolContent(
 *       { type: 'text', text: `the page at ${url}` },
 *       { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
 *     );
 *   },
 * });
 */
export function toolContent(...blocks: ToolResultContent[]): ToolContent {
  return { [CONTENT]: blocks };
}

/** Content blocks a tool returns, made by {@link toolContent}. */
export interface ToolContent {
  readonly [CONTENT]: readonly ToolResultContent[];
}

/** The blocks of a tool's return value made by {@link toolContent}, or `undefined` for any other. */
export function contentOf(value: unknown): readonly unknown[] | undefined {
  if (typeof value !== 'object' || value === null || !(CONTENT in value)) return undefined;
  const blocks = (value as Partial<Record<typeof CONTENT, unknown>>)[CONTENT];
  return Array.isArray(blocks) ? blocks : undefined;
}
