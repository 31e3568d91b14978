/**
 * The MCP server the tests talk to: an SDK `McpServer` named `test-server` with a fixed set of
 * tools, each there to exercise one thing a client must handle (annotations, image and resource
 * content, tool errors, progress, cancellation, a dying server, a tool list that changes). The
 * stdio entry (stdioServer.ts) and the HTTP entry (httpServer.ts) both build it here, so every
 * transport serves the same tools.
 *
 * What a tool did that the test cannot see in its answer is appended, one line each, to the file
 * named by `MCP_TEST_LOG` (when set): `delete_item <id>`, `slow cancelled`, `crash`.
 *
 * `MCP_TEST_TOOLS=lookup,slow` registers only the named tools; `MCP_TEST_TOOL_PREFIX=b_` prefixes
 * every fixed tool's name (`b_lookup`), so two servers can be told apart in one agent. Tools that
 * `add_tool` adds keep exactly the name they were given.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** Every fixed tool's name, as registered without a prefix. */
export const TEST_TOOL_NAMES = [
  'lookup',
  'delete_item',
  'set_flag',
  'no_hints',
  'image',
  'resource',
  'fails',
  'slow',
  'crash',
  'add_tool',
  'remove_tool',
] as const;

export type TestToolName = (typeof TEST_TOOL_NAMES)[number];

/** The annotations each fixed tool is listed with (`undefined`: none at all). */
export const TEST_TOOL_ANNOTATIONS: Record<TestToolName, ToolAnnotations | undefined> = {
  lookup: { readOnlyHint: true },
  delete_item: { destructiveHint: true },
  set_flag: { idempotentHint: true, readOnlyHint: false, destructiveHint: false },
  no_hints: undefined,
  image: { readOnlyHint: true },
  resource: { readOnlyHint: true },
  fails: { readOnlyHint: true },
  slow: { readOnlyHint: false, destructiveHint: true },
  crash: undefined,
  add_tool: { readOnlyHint: false, destructiveHint: false },
  remove_tool: { readOnlyHint: false, destructiveHint: false },
};

/** A 1x1 red RGB PNG (69 bytes), small enough to compare whole. */
export const RED_DOT_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

export const NOTES_URI = 'test://notes.txt';
export const NOTES_TEXT = 'the notes';

export interface TestServerOptions {
  /** Only these fixed tools (unprefixed names); all of them when absent. */
  tools?: readonly string[];
  /** Put before every fixed tool's name. */
  prefix?: string;
  /** The file side effects are appended to; none are recorded when absent. */
  logFile?: string;
}

/** The options the environment asks for (`MCP_TEST_TOOLS`, `MCP_TEST_TOOL_PREFIX`, `MCP_TEST_LOG`). */
export function testServerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): TestServerOptions {
  const tools = env.MCP_TEST_TOOLS?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = tools?.filter((name) => !(TEST_TOOL_NAMES as readonly string[]).includes(name));
  // A typo would otherwise start a server quietly missing the tool a test is about.
  if (unknown !== undefined && unknown.length > 0) {
    throw new Error(`MCP_TEST_TOOLS names unknown tools: ${unknown.join(', ')}`);
  }
  return {
    ...(tools !== undefined && tools.length > 0 ? { tools } : {}),
    ...(env.MCP_TEST_TOOL_PREFIX ? { prefix: env.MCP_TEST_TOOL_PREFIX } : {}),
    ...(env.MCP_TEST_LOG ? { logFile: env.MCP_TEST_LOG } : {}),
  };
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * A fresh server with the test tools registered, not yet connected. One per connection: an
 * `McpServer` serves one transport, and the tools `add_tool` adds belong to that connection only.
 *
 * Beware `crash`: it ends the whole process, so only call it on a server in a child process.
 */
export function createTestServer(
  options: TestServerOptions = testServerOptionsFromEnv(),
): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  const prefix = options.prefix ?? '';
  const wanted = (name: TestToolName) =>
    options.tools === undefined || options.tools.includes(name);
  const record = (line: string) => {
    // Synchronous so the line is on disk before the answer (or the exit) that follows it.
    if (options.logFile !== undefined) appendFileSync(options.logFile, `${line}\n`);
  };
  const added = new Map<string, RegisteredTool>();

  // A fixed tool's config: its prefixed name and its annotations from the one table above.
  const config = <T extends object>(name: TestToolName, description: string, rest: T) => ({
    description,
    ...rest,
    ...(TEST_TOOL_ANNOTATIONS[name] !== undefined
      ? { annotations: TEST_TOOL_ANNOTATIONS[name] }
      : {}),
  });

  if (wanted('lookup')) {
    server.registerTool(
      `${prefix}lookup`,
      config('lookup', 'Looks up the value stored under a key.', {
        inputSchema: { key: z.string().describe('The key to look up') },
      }),
      ({ key }) => text(`value of ${key}`),
    );
  }

  if (wanted('delete_item')) {
    server.registerTool(
      `${prefix}delete_item`,
      config('delete_item', 'Deletes an item for good.', {
        inputSchema: { id: z.string().describe('The item to delete') },
      }),
      ({ id }) => {
        record(`delete_item ${id}`);
        return text(`deleted ${id}`);
      },
    );
  }

  if (wanted('set_flag')) {
    server.registerTool(
      `${prefix}set_flag`,
      config('set_flag', 'Sets a named flag; setting it twice changes nothing more.', {
        inputSchema: { name: z.string(), value: z.boolean() },
      }),
      ({ name, value }) => text(`flag ${name} set to ${String(value)}`),
    );
  }

  if (wanted('no_hints')) {
    server.registerTool(
      `${prefix}no_hints`,
      config('no_hints', 'A tool that says nothing about its effects.', {}),
      () => text('ok'),
    );
  }

  if (wanted('image')) {
    server.registerTool(
      `${prefix}image`,
      config('image', 'Returns a picture of a red dot.', {}),
      () => ({
        content: [
          { type: 'image', data: RED_DOT_PNG_BASE64, mimeType: 'image/png' },
          { type: 'text', text: 'a red dot' },
        ],
      }),
    );
  }

  // A client following the resource_link below can read it.
  server.registerResource(
    'notes',
    NOTES_URI,
    { mimeType: 'text/plain', description: 'The notes' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: NOTES_TEXT }] }),
  );

  if (wanted('resource')) {
    server.registerTool(
      `${prefix}resource`,
      config('resource', 'Returns the notes, embedded and as a link.', {}),
      () => ({
        content: [
          {
            type: 'resource',
            resource: { uri: NOTES_URI, mimeType: 'text/plain', text: NOTES_TEXT },
          },
          { type: 'resource_link', uri: NOTES_URI, name: 'notes.txt', mimeType: 'text/plain' },
        ],
      }),
    );
  }

  if (wanted('fails')) {
    server.registerTool(
      `${prefix}fails`,
      config('fails', 'Always fails, as a tool (isError), not as a protocol error.', {}),
      () => ({ isError: true, content: [{ type: 'text', text: 'the thing failed' }] }),
    );
  }

  if (wanted('slow')) {
    server.registerTool(
      `${prefix}slow`,
      config('slow', 'Works in steps, reporting progress after each; can be cancelled.', {
        inputSchema: {
          steps: z.number().int().min(1).max(100),
          stepMs: z.number().min(0).max(60_000),
        },
      }),
      async ({ steps, stepMs }, extra) => {
        // The client asks for progress by sending a token; without one, none may be sent.
        const progressToken = extra._meta?.progressToken;
        // Said before any work, so a test can tell a call that started from one never sent.
        record('slow started');
        try {
          for (let step = 1; step <= steps; step++) {
            // Cancellation (notifications/cancelled, or the connection closing) aborts this signal.
            await sleep(stepMs, undefined, { signal: extra.signal });
            if (progressToken !== undefined) {
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken, progress: step, total: steps, message: `step ${step}` },
              });
            }
          }
        } catch (error) {
          if (!extra.signal.aborted) throw error;
          record('slow cancelled');
          // The SDK sends no answer to a cancelled request, so what is returned here is dropped.
          return text('cancelled');
        }
        return text(`done after ${steps} steps`);
      },
    );
  }

  if (wanted('crash')) {
    server.registerTool(
      `${prefix}crash`,
      config('crash', 'Ends the server process before answering.', {}),
      () => {
        record('crash');
        process.exit(3);
      },
    );
  }

  if (wanted('add_tool')) {
    server.registerTool(
      `${prefix}add_tool`,
      config('add_tool', 'Adds a read-only tool of the given name to this connection.', {
        inputSchema: { name: z.string().min(1) },
      }),
      ({ name }) => {
        // Registering on a connected McpServer sends notifications/tools/list_changed itself.
        const tool = server.registerTool(
          name,
          { description: `Says hello from ${name}.`, annotations: { readOnlyHint: true } },
          () => text(`hello from ${name}`),
        );
        added.set(name, tool);
        return text('added');
      },
    );
  }

  if (wanted('remove_tool')) {
    server.registerTool(
      `${prefix}remove_tool`,
      config('remove_tool', 'Removes a tool that add_tool added.', {
        inputSchema: { name: z.string() },
      }),
      ({ name }) => {
        const tool = added.get(name);
        if (tool === undefined) {
          return { isError: true, content: [{ type: 'text', text: `no added tool ${name}` }] };
        }
        // Also sends notifications/tools/list_changed.
        tool.remove();
        added.delete(name);
        return text('removed');
      },
    );
  }

  return server;
}
