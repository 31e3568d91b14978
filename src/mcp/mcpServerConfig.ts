/**
 * How an agent reaches its MCP servers: the same `mcpServers` shape Claude Code's `.mcp.json`
 * uses, checked before anything starts.
 */
import { MAX_TIMEOUT_MS } from '../actors/index.js';
import { AgentStatechartError } from '../machine/index.js';

/**
 * How one tool of an MCP server is treated, overriding what its annotations say.
 *
 * @example
 * const settings: McpToolSettings = { mutating: false }; // a tool its server forgot to mark read-only
 */
export interface McpToolSettings {
  /**
   * Whether the tool changes anything (permission modes gate mutating calls, `plan` refuses
   * them). Default: false when the server marks it `readOnlyHint`, true otherwise.
   */
  mutating?: boolean;
  /**
   * Whether a mutating call that was running when the process stopped may run again on resume.
   * Default: the server's `idempotentHint`.
   */
  idempotent?: boolean;
  /** Whether every call waits for a person's approval, whatever the mode. Default false. */
  alwaysAsk?: boolean;
  /** Whether the tool counts as an edit, which `acceptEdits` runs without asking. Default false. */
  edit?: boolean;
  /** Longest a call may run, in milliseconds. Default: the server's `toolTimeoutMs`. */
  timeoutMs?: number;
}

/** What every kind of server takes besides how to reach it. */
interface McpServerCommon {
  /** Per-tool overrides of the annotations, by the tool's name on the server (not `mcp__…`). */
  tools?: Record<string, McpToolSettings>;
  /** How long connecting and listing the tools may take, in milliseconds. Default 30 000. */
  startupTimeoutMs?: number;
  /** Longest a call of this server's tools may run, in milliseconds. Default 120 000. */
  toolTimeoutMs?: number;
}

/**
 * A server the agent starts as a child process and speaks to over its stdin and stdout.
 *
 * @example
 * const github: McpStdioServerConfig = {
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-github'],
 *   env: { GITHUB_PERSONAL_ACCESS_TOKEN: process.env.GITHUB_TOKEN ?? '' },
 * };
 */
export interface McpStdioServerConfig extends McpServerCommon {
  type?: 'stdio';
  /** The program to run. */
  command: string;
  args?: string[];
  /**
   * Environment variables of the process, added to a safe few of the agent's own (`PATH`,
   * `HOME`, …): the agent's secrets are not passed on unless named here.
   */
  env?: Record<string, string>;
  /** Directory the process starts in. Default: the agent's working directory. */
  cwd?: string;
}

/**
 * A server reached over HTTP: Streamable HTTP, falling back to the older HTTP+SSE transport
 * when the server does not speak it (`type: 'sse'` goes to SSE at once).
 *
 * @example
 * const docs: McpHttpServerConfig = {
 *   url: 'https://mcp.example.com/mcp',
 *   headers: { Authorization: `Bearer ${process.env.DOCS_TOKEN}` },
 * };
 */
export interface McpHttpServerConfig extends McpServerCommon {
  type?: 'http' | 'sse';
  url: string;
  /** Sent with every request (an `Authorization` header, say). */
  headers?: Record<string, string>;
}

/**
 * One MCP server: a command to start, or a URL.
 *
 * @example
 * const servers: Record<string, McpServerConfig> = {
 *   files: { command: 'node', args: ['files-server.js'] },
 *   docs: { url: 'http://127.0.0.1:8080/mcp' },
 * };
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * A server's name: it becomes part of its tools' names (`mcp__<server>__<tool>`), so it takes
 * only what a tool name takes, and no `__`, which would make the tool's name ambiguous.
 */
const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;

/**
 * Checks the `mcpServers` option before any server starts, with errors that name the server and
 * the fix (`INVALID_OPTION`).
 *
 * @example
 * checkMcpServers({ docs: { url: 'http://127.0.0.1:8080/mcp' } }); // passes
 * checkMcpServers({ 'my docs': { url: 'x' } }); // throws INVALID_OPTION
 */
export function checkMcpServers(
  servers: unknown,
): asserts servers is Record<string, McpServerConfig> {
  if (!isRecord(servers)) {
    throw refuse(
      'mcpServers must be an object of servers by name, such as { docs: { url: "http://127.0.0.1:8080/mcp" } }',
    );
  }
  for (const [name, server] of Object.entries(servers)) {
    if (!SERVER_NAME.test(name) || name.includes('__')) {
      throw refuse(
        `mcpServers: the name ${JSON.stringify(name)} cannot name tools; use letters, digits, '_' and '-' (no '__')`,
      );
    }
    checkServer(name, server);
  }
}

function checkServer(name: string, server: unknown): void {
  const where = `mcpServers.${name}`;
  if (!isRecord(server)) throw refuse(`${where} must be { command, args? } or { url }`);
  const { type } = server;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse') {
    throw refuse(`${where}.type is ${JSON.stringify(type)}; use 'stdio', 'http' or 'sse'`);
  }
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand === hasUrl) {
    throw refuse(`${where} needs either a command (a local server) or a url (a remote one)`);
  }
  if (hasCommand) {
    if (type !== undefined && type !== 'stdio') {
      throw refuse(`${where} has a command, so its type is 'stdio', not '${String(type)}'`);
    }
    checkString(`${where}.command`, server.command);
    if (server.args !== undefined) checkStrings(`${where}.args`, server.args);
    if (server.env !== undefined) checkStringRecord(`${where}.env`, server.env);
    if (server.cwd !== undefined) checkString(`${where}.cwd`, server.cwd);
  } else {
    if (type === 'stdio') throw refuse(`${where} has a url, so its type is 'http' or 'sse'`);
    checkString(`${where}.url`, server.url);
    const url = URL.canParse(server.url as string) ? new URL(server.url as string) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw refuse(`${where}.url ${JSON.stringify(server.url)} is not an http(s) URL`);
    }
    if (server.headers !== undefined) checkStringRecord(`${where}.headers`, server.headers);
  }
  checkDuration(`${where}.startupTimeoutMs`, server.startupTimeoutMs);
  checkDuration(`${where}.toolTimeoutMs`, server.toolTimeoutMs);
  if (server.tools !== undefined) {
    if (!isRecord(server.tools)) throw refuse(`${where}.tools must be settings by tool name`);
    for (const [tool, settings] of Object.entries(server.tools)) {
      checkToolSettings(`${where}.tools.${tool}`, settings);
    }
  }
}

function checkToolSettings(where: string, settings: unknown): void {
  if (!isRecord(settings)) throw refuse(`${where} must be { mutating?, idempotent?, … }`);
  for (const flag of ['mutating', 'idempotent', 'alwaysAsk', 'edit'] as const) {
    const value = settings[flag];
    if (value !== undefined && typeof value !== 'boolean') {
      throw refuse(`${where}.${flag} must be true or false`);
    }
  }
  checkDuration(`${where}.timeoutMs`, settings.timeoutMs);
}

function checkDuration(where: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMEOUT_MS) {
    throw refuse(`${where} must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`);
  }
}

function checkString(where: string, value: unknown): void {
  if (typeof value !== 'string' || value === '')
    throw refuse(`${where} must be a non-empty string`);
}

function checkStrings(where: string, value: unknown): void {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw refuse(`${where} must be an array of strings`);
  }
}

function checkStringRecord(where: string, value: unknown): void {
  if (!isRecord(value) || Object.values(value).some((item) => typeof item !== 'string')) {
    throw refuse(`${where} must be an object of string values`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(message: string): AgentStatechartError {
  return new AgentStatechartError('INVALID_OPTION', message);
}
