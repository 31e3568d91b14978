import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AgentStatechartError } from '../../../src/index.js';
import { createBuiltinTools } from '../../../src/actors/tools/builtins/createBuiltinTools.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { defineTool } from '../../../src/actors/tools/defineTool.js';

describe('createToolRegistry', () => {
  it('lists specs for the chart with mutating, edit, description and an object input schema', () => {
    const registry = createToolRegistry(createBuiltinTools());
    const specs = registry.specs();
    expect(specs.map(({ name, mutating, edit }) => ({ name, mutating, edit }))).toEqual([
      { name: 'read_file', mutating: false, edit: false },
      { name: 'list_files', mutating: false, edit: false },
      { name: 'edit_file', mutating: true, edit: true },
      { name: 'write_file', mutating: true, edit: true },
      { name: 'bash', mutating: true, edit: false },
    ]);
    for (const spec of specs) {
      expect(spec.description).toBeTruthy();
      expect(spec.inputSchema?.type).toBe('object');
    }
  });

  it('lists definitions in the Messages API shape', () => {
    const registry = createToolRegistry(createBuiltinTools());
    const readFile = registry.definitions().find((definition) => definition.name === 'read_file');
    expect(readFile?.input_schema).toMatchObject({
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' } },
    });
    expect(Object.keys(readFile ?? {}).sort()).toEqual(['description', 'input_schema', 'name']);
  });

  it('hands out copies, so a caller changing a schema cannot change the registry', () => {
    const registry = createToolRegistry(createBuiltinTools());
    const [first] = registry.definitions();
    if (first === undefined) throw new Error('no definitions');
    first.input_schema.properties = {};
    expect(registry.definitions()[0]?.input_schema.properties).not.toEqual({});
  });

  it('rejects two tools with one name, saying which name and how to fix it', () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Another reader',
      input: z.object({}),
      mutating: false,
      execute: () => '',
    });
    let caught: unknown;
    try {
      createToolRegistry([...createBuiltinTools(), tool]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AgentStatechartError);
    expect((caught as AgentStatechartError).code).toBe('DUPLICATE_TOOL');
    expect((caught as AgentStatechartError).message).toContain("'read_file'");
    expect((caught as AgentStatechartError).message).toContain('unique');
  });

  it("answers isMutating from the tool's flag, and by Loom's default for unknown names", () => {
    const registry = createToolRegistry([
      defineTool({
        name: 'bash',
        description: 'A read-only bash',
        input: z.object({}),
        mutating: false,
        execute: () => '',
      }),
    ]);
    expect(registry.isMutating('bash')).toBe(false);
    expect(registry.isMutating('write_file')).toBe(true);
    expect(registry.isMutating('grep')).toBe(false);
  });

  it('finds tools by name and lists names in order', () => {
    const registry = createToolRegistry(createBuiltinTools());
    expect(registry.names()).toEqual([
      'read_file',
      'list_files',
      'edit_file',
      'write_file',
      'bash',
    ]);
    expect(registry.get('bash')?.name).toBe('bash');
    expect(registry.get('nope')).toBeUndefined();
  });
});
