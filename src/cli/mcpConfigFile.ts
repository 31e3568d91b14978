/**
 * `run --mcp-config FILE`: the MCP servers of a `.mcp.json` (the file Claude Code reads), and
 * `/mcp`, which says where each stands.
 */
import { readFile } from 'node:fs/promises';
import { checkMcpServers, type McpServerConfig, type McpServerStatus } from '../mcp/index.js';

/**
 * Reads the servers of `path`: `{ "mcpServers": { name: { … } } }` as in `.mcp.json`, or the
 * servers object alone. `${VAR}` and `${VAR:-default}` in strings are read from `env`, as Claude
 * Code does, so tokens stay out of the file. Throws a message that names the file.
 *
 * @example
 * const servers = await readMcpConfig('.mcp.json', process.env);
 */
export async function readMcpConfig(
  path: string,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, McpServerConfig>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `--mcp-config ${path}: ${error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message}`,
      { cause: error },
    );
  }
  const servers =
    typeof parsed === 'object' && parsed !== null && 'mcpServers' in parsed
      ? parsed.mcpServers
      : parsed;
  const expanded = expand(servers, env, path);
  try {
    checkMcpServers(expanded);
  } catch (error) {
    throw new Error(`--mcp-config ${path}: ${(error as Error).message}`, { cause: error });
  }
  return expanded;
}

/** `${VAR}` or `${VAR:-default}` in a string. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expand(value: unknown, env: NodeJS.ProcessEnv, path: string): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name] ?? fallback;
      if (found === undefined) {
        throw new Error(
          `--mcp-config ${path}: \${${name}} is not set (give it a default: \${${name}:-…})`,
        );
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item) => expand(item, env, path));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expand(item, env, path)]),
    );
  }
  return value;
}

/**
 * What `/mcp` prints: one line per server (its state, transport and tools), and why it is down
 * or which tools were left out.
 *
 * @example
 * write(describeMcpServers(agent.mcpServers()));
 */
export function describeMcpServers(servers: readonly McpServerStatus[]): string {
  if (servers.length === 0) return 'no MCP servers (start run with --mcp-config FILE)\n';
  return servers
    .map((server) => {
      const tools = server.tools.length === 1 ? '1 tool' : `${server.tools.length} tools`;
      const lines = [`${server.name}: ${server.state} (${server.transport}), ${tools}`];
      if (server.tools.length > 0) lines.push(`  ${server.tools.join(', ')}`);
      if (server.error !== undefined && server.state !== 'connected')
        lines.push(`  ${server.error}`);
      for (const problem of server.problems) lines.push(`  left out: ${problem}`);
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
