/**
 * The pieces between an MCP server and the agent, without a server: a listed tool as the agent's
 * tool (its name, flags and schema check, or why it is left out), a call's result as what the
 * model reads, and the `mcpServers` option refused where it cannot work.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { runToolCall, createToolRegistry, type Tool } from '../../src/actors/index.js';
import { checkMcpServers } from '../../src/mcp/mcpServerConfig.js';
import { type InputValidator, mcpTool, type McpListedTool } from '../../src/mcp/mcpTool.js';
import { toToolAnswer } from '../../src/mcp/mcpToolResult.js';
import { contentOf } from '../../src/actors/tools/toolContent.js';

const ajv = new AjvJsonSchemaValidator();
const validator = (schema: Record<string, unknown>): InputValidator => {
  const check = ajv.getValidator(schema);
  return (input) => {
    const result = check(input);
    return result.valid ? { valid: true } : { valid: false, errorMessage: result.errorMessage };
  };
};

const calls: Array<{ name: string; input: unknown }> = [];
function make(listed: McpListedTool, settings?: Parameters<typeof mcpTool>[1]['settings']) {
  return mcpTool(listed, {
    server: 'srv',
    settings,
    toolTimeoutMs: undefined,
    validator,
    call: (name, input) => {
      calls.push({ name, input });
      return Promise.resolve('called');
    },
  });
}

function toolOf(made: ReturnType<typeof make>): Tool {
  if (!('tool' in made)) throw new Error(made.problem);
  return made.tool;
}

const schema = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};

describe('a listed MCP tool as the agent sees it', () => {
  it('is named mcp__<server>__<tool> and keeps the server schema as it is', () => {
    const tool = toolOf(make({ name: 'get', inputSchema: schema, description: 'Get one' }));
    expect(tool.name).toBe('mcp__srv__get');
    expect(tool.inputSchema).toBe(schema);
    expect(tool.description).toBe('Get one');
  });

  it('reads the annotations as the chart flags, and settings override them', () => {
    const flags = (listed: Partial<McpListedTool>, settings?: Record<string, unknown>) => {
      const tool = toolOf(make({ name: 'x', inputSchema: schema, ...listed }, settings));
      return { mutating: tool.mutating, idempotent: tool.idempotent, edit: tool.edit };
    };
    expect(flags({ annotations: { readOnlyHint: true } })).toEqual({
      mutating: false,
      idempotent: false,
      edit: false,
    });
    expect(flags({})).toEqual({ mutating: true, idempotent: false, edit: false });
    expect(flags({ annotations: { destructiveHint: false } }).mutating).toBe(true);
    expect(flags({ annotations: { idempotentHint: true } }).idempotent).toBe(true);
    expect(flags({ annotations: { readOnlyHint: true } }, { mutating: true, edit: true })).toEqual({
      mutating: true,
      idempotent: false,
      edit: true,
    });
  });

  it('is left out, saying why, when the API would refuse its name or schema', () => {
    const problem = (listed: McpListedTool) => {
      const made = make(listed);
      return 'problem' in made ? made.problem : 'kept';
    };
    expect(problem({ name: 'a.b', inputSchema: schema })).toMatch(/'mcp__srv__a\.b'.*not 1 to 64/);
    expect(problem({ name: 'x'.repeat(60), inputSchema: schema })).toMatch(/not 1 to 64/);
    expect(problem({ name: 'u', inputSchema: { type: 'object', anyOf: [] } })).toMatch(
      /refuses its input schema \(it has 'anyOf' at its top level\)/,
    );
    expect(problem({ name: 'v', inputSchema: { type: 'string' } })).toMatch(/type is "string"/);
    expect(
      problem({ name: 'w', inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } }),
    ).toMatch(/does not compile/);
  });

  it('checks an input against the schema before the call, naming what is wrong', async () => {
    calls.length = 0;
    const tool = toolOf(make({ name: 'get', inputSchema: schema }));
    const registry = createToolRegistry([tool]);
    const refused = await runToolCall(
      registry,
      { id: 't1', name: tool.name, input: { id: 7 } },
      { workspace: '/' },
    );
    expect(refused.status).toBe('error');
    expect(refused.status === 'error' && refused.error.message).toMatch(
      /invalid input for tool 'mcp__srv__get':\n- \(input\): .*id.*string/,
    );
    expect(calls).toEqual([]);
    const run = await runToolCall(
      registry,
      { id: 't2', name: tool.name, input: { id: 'a' } },
      { workspace: '/' },
    );
    expect(run).toEqual({ status: 'success', output: 'called' });
    expect(calls).toEqual([{ name: 'get', input: { id: 'a' } }]);
  });
});

describe("an MCP call's result as the model reads it", () => {
  const blocksOf = (result: Parameters<typeof toToolAnswer>[0]) => contentOf(toToolAnswer(result));

  it('turns text, images, resources and links into blocks, and leaves out what it cannot show', () => {
    expect(
      blocksOf({
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: '' },
          { type: 'image', data: 'iVBO', mimeType: 'image/png' },
          { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'the text' } },
          {
            type: 'resource',
            resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'JVBE' },
          },
          { type: 'resource_link', uri: 'file:///b', name: 'b', description: 'the b file' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
      { type: 'text', text: '[an image of type image/tiff the model cannot read was left out]' },
      { type: 'text', text: '[audio (audio/wav) the model cannot hear was left out]' },
      { type: 'text', text: 'file:///a.txt\nthe text' },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' },
        title: 'file:///a.pdf',
      },
      { type: 'text', text: 'resource b at file:///b: the b file' },
    ]);
  });

  it('says so when there is no content, and shows structured content as JSON', () => {
    expect(blocksOf({ content: [] })).toEqual([{ type: 'text', text: '(no output)' }]);
    expect(blocksOf({ content: [], structuredContent: { n: 1 } })).toEqual([
      { type: 'text', text: '{"n":1}' },
    ]);
  });

  it('makes isError the call error, with the server text', () => {
    expect(() =>
      toToolAnswer({ isError: true, content: [{ type: 'text', text: 'no such issue' }] }),
    ).toThrow('no such issue');
    expect(() => toToolAnswer({ isError: true })).toThrow(/without a message/);
  });
});

describe('the mcpServers option', () => {
  it.each([
    [[], /must be an object of servers/],
    [{ 'a b': { command: 'x' } }, /cannot name tools/],
    [{ a__b: { command: 'x' } }, /no '__'/],
    [{ a: {} }, /either a command .* or a url/],
    [{ a: { command: 'x', url: 'http://h' } }, /either a command/],
    [{ a: { command: '' } }, /a\.command must be a non-empty string/],
    [{ a: { command: 'x', type: 'http' } }, /its type is 'stdio'/],
    [{ a: { command: 'x', args: [1] } }, /a\.args must be an array of strings/],
    [{ a: { command: 'x', env: { K: 1 } } }, /a\.env must be an object of string values/],
    [{ a: { url: 'ftp://h' } }, /not an http\(s\) URL/],
    [{ a: { url: 'http://h', type: 'stdio' } }, /type is 'http' or 'sse'/],
    [{ a: { url: 'http://h', startupTimeoutMs: 0 } }, /startupTimeoutMs must be a positive number/],
    [
      { a: { url: 'http://h', tools: { t: { mutating: 'no' } } } },
      /tools\.t\.mutating must be true or false/,
    ],
  ])('refuses %j', (servers, message) => {
    expect(() => checkMcpServers(servers)).toThrow(message);
  });

  it('takes the shapes of a .mcp.json', () => {
    expect(() =>
      checkMcpServers({
        files: { type: 'stdio', command: 'node', args: ['server.js'], env: { K: 'v' } },
        web: {
          type: 'http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer t' },
        },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      }),
    ).not.toThrow();
  });
});
