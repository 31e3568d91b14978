/**
 * Mermaid's own parser, under Node without a DOM.
 *
 * `mermaid.parse` runs the real diagram grammar (jison for state diagrams) and then builds the
 * diagram's database, which passes every label through DOMPurify. DOMPurify needs a browser
 * `window`; under Node it loads as an inert object without `sanitize` or `addHook`. Validation
 * needs no sanitising (nothing is rendered), so this gives that inert object a pass-through
 * `sanitize` and a no-op `addHook` before mermaid is imported — the same module instance
 * mermaid imports — instead of pulling in a whole DOM (jsdom) for a parse.
 */
import DOMPurify from 'dompurify';
import type MermaidApi from 'mermaid';

type Mermaid = typeof MermaidApi;

let loaded: Promise<Mermaid> | undefined;

async function loadMermaid(): Promise<Mermaid> {
  const purify = DOMPurify as unknown as {
    isSupported?: boolean;
    sanitize?: (text: string) => string;
    addHook?: () => void;
  };
  if (purify.isSupported !== true) {
    purify.sanitize = (text: string) => text;
    purify.addHook = () => undefined;
  }
  const { default: mermaid } = await import('mermaid');
  return mermaid;
}

/**
 * Parses Mermaid text with mermaid's own parser; rejects with mermaid's error (line and
 * expected tokens) when the text is not valid.
 */
export async function parseMermaid(text: string): Promise<{ diagramType: string }> {
  loaded ??= loadMermaid();
  const mermaid = await loaded;
  // Without `suppressErrors`, parse rejects with the parser's message on invalid text.
  return mermaid.parse(text);
}
