/**
 * `run --mcp-config FILE`: the servers of a `.mcp.json` join the agent, `${VAR}` read from the
 * environment, and `/mcp` says where each stands.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/runCommand.js';
import { stdioServerCommand } from '../support/mcp/startMcpHttpServer.js';

const exec = promisify(execFile);
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-mcp-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(lines: string[], config: unknown, env: NodeJS.ProcessEnv = {}) {
  const file = join(workspace, '.mcp.json');
  await writeFile(file, JSON.stringify(config));
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const done = runCommand(['--workspace', workspace, '--mcp-config', file], { input, output, env });
  input.end(lines.map((line) => `${line}\n`).join(''));
  const code = await done;
  return { code, printed };
}

describe('agent-statechart run --mcp-config', () => {
  it('connects the servers of a .mcp.json, and /mcp lists them with their tools', async () => {
    const { command, args } = stdioServerCommand();
    const { code, printed } = await run(
      ['/mcp'],
      {
        mcpServers: {
          t: { type: 'stdio', command, args, env: { MCP_TEST_LOG: '${LOG_DIR}/mcp.log' } },
          gone: { command: join(workspace, 'missing-${NOPE:-server}') },
        },
      },
      { LOG_DIR: workspace },
    );
    expect(code).toBe(0);
    expect(printed).toContain('/mcp, /quit');
    expect(printed).toMatch(
      /t: connected \(stdio\), 11 tools\n {2}mcp__t__lookup, mcp__t__delete_item,/m,
    );
    // Listed as it stands when /mcp reads it: between the failed start and the next attempt.
    expect(printed).toMatch(
      /gone: (restarting|connecting) \(stdio\), 0 tools\n {2}could not start( again)?: spawn /,
    );
    expect(printed).toContain(join(workspace, 'missing-server'));
  });

  it('refuses a file it cannot use, naming it and what to fix', async () => {
    await expect(run([], { mcpServers: { t: { url: '${MCP_URL}' } } })).rejects.toThrow(
      /--mcp-config .*\.mcp\.json: \$\{MCP_URL\} is not set/,
    );
    await expect(run([], { mcpServers: { 'a b': { command: 'x' } } })).rejects.toThrow(
      /--mcp-config .*: mcpServers: the name "a b" cannot name tools/,
    );
  });
});
