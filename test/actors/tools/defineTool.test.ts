import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AgentStatechartError } from '../../../src/index.js';
import { DEFAULT_TOOL_TIMEOUT_MS, defineTool } from '../../../src/actors/tools/defineTool.js';

const base = {
  name: 'echo',
  description: 'Repeat the text',
  input: z.object({ text: z.string().describe('What to repeat') }),
  mutating: false,
  execute: ({ text }: { text: string }) => text,
};

function definitionError(run: () => unknown): AgentStatechartError {
  try {
    run();
  } catch (error) {
    if (error instanceof AgentStatechartError) return error;
    throw error;
  }
  throw new Error('expected defineTool to throw');
}

describe('defineTool', () => {
  it('converts the zod input schema to an object JSON Schema without the dialect marker', () => {
    const tool = defineTool(base);
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to repeat' } },
      required: ['text'],
    });
  });

  it('describes the input side of the schema, so fields with defaults are optional for the model', () => {
    const tool = defineTool({
      ...base,
      input: z.object({ text: z.string(), times: z.number().default(1) }),
      execute: () => '',
    });
    expect(tool.inputSchema.required).toEqual(['text']);
  });

  it('applies the default timeout and derives edit from mutating and the name', () => {
    expect(defineTool(base).timeoutMs).toBe(DEFAULT_TOOL_TIMEOUT_MS);
    expect(defineTool(base).edit).toBe(false);
    expect(defineTool({ ...base, name: 'patch', mutating: true }).edit).toBe(true);
    expect(defineTool({ ...base, name: 'bash', mutating: true }).edit).toBe(false);
    expect(defineTool({ ...base, mutating: true, edit: false }).edit).toBe(false);
  });

  it('refuses a non-object input schema and says to wrap it in z.object', () => {
    const error = definitionError(() =>
      defineTool({ ...base, input: z.string(), execute: (text: string) => text }),
    );
    expect(error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(error.message).toContain('z.object');
  });

  it('refuses a schema JSON Schema cannot express, naming the tool', () => {
    const error = definitionError(() =>
      defineTool({ ...base, input: z.object({ when: z.date() }), execute: () => '' }),
    );
    expect(error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(error.message).toContain("tool 'echo'");
  });

  it.each([
    ['a name the API rejects', { name: 'read file' }, 'not valid'],
    ['an empty description', { description: '  ' }, 'description'],
    ['a zero timeout', { timeoutMs: 0 }, 'timeoutMs'],
    ['an infinite timeout', { timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs'],
  ])('refuses %s', (_label, override, fragment) => {
    const error = definitionError(() => defineTool({ ...base, ...override }));
    expect(error.code).toBe('INVALID_TOOL_DEFINITION');
    expect(error.message).toContain(fragment);
  });
});
