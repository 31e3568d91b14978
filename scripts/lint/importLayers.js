// An ESLint rule that keeps the package's imports pointing one way (docs/architecture.md): each folder of
// src/ is a layer that may use only the layers its entry names, and only through what a layer
// offers — its index.ts — never another layer's private files.
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * The layers of src/ and what each may import, bottom up. The root entry (src/index.ts) may
 * import every layer's index.
 */
export const LAYERS = {
  machine: [],
  actors: ['machine'],
  persistence: ['machine'],
  diagram: ['machine'],
  testing: ['machine'],
  telemetry: ['machine'],
  mcp: ['machine', 'actors', 'persistence'],
  inspect: ['machine', 'persistence', 'diagram'],
  agent: ['machine', 'actors', 'persistence', 'inspect', 'telemetry', 'mcp'],
  host: ['machine', 'actors', 'persistence', 'inspect', 'telemetry', 'mcp', 'agent'],
  dbos: ['machine', 'actors', 'persistence', 'inspect', 'telemetry', 'mcp', 'agent', 'host'],
  cli: [
    'machine',
    'actors',
    'persistence',
    'inspect',
    'telemetry',
    'mcp',
    'agent',
    'host',
    'diagram',
    'testing',
  ],
};

/** The layer and the path inside it of a file under `srcRoot`, or undefined outside src/. */
function locate(srcRoot, file) {
  const inside = relative(srcRoot, file);
  if (inside.startsWith('..') || inside === '') return undefined;
  const parts = inside.split(sep);
  if (parts.length === 1) return { layer: '', path: parts[0] };
  return { layer: parts[0], path: parts.slice(1).join('/') };
}

/** @type {import('eslint').Rule.RuleModule} */
const importLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point one way between the layers of src/' },
    schema: [{ type: 'object', properties: { srcRoot: { type: 'string' } } }],
    messages: {
      upward:
        'src/{{from}} may not import src/{{to}}: layers import only those below them ({{allowed}}); move the code down, or pass it in',
      private:
        "src/{{from}} imports src/{{to}}/{{path}}, a private file of another layer: import '{{index}}' (add what is needed to that layer's index.ts)",
    },
  },
  create(context) {
    const srcRoot = resolve(context.options[0]?.srcRoot ?? 'src');
    const here = locate(srcRoot, context.filename);
    if (here === undefined) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = locate(srcRoot, resolve(dirname(context.filename), source));
      if (target === undefined || target.layer === here.layer || target.layer === '') return;
      const from = here.layer === '' ? 'index.ts' : here.layer;
      if (here.layer !== '') {
        const allowed = LAYERS[here.layer];
        if (allowed === undefined || !allowed.includes(target.layer)) {
          context.report({
            node,
            messageId: 'upward',
            data: { from, to: target.layer, allowed: allowed?.join(', ') || 'none' },
          });
          return;
        }
      }
      if (target.path !== 'index.js') {
        const index = source.slice(0, source.length - target.path.length) + 'index.js';
        context.report({
          node,
          messageId: 'private',
          data: { from, to: target.layer, path: target.path, index },
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { 'import-layers': importLayers } };
