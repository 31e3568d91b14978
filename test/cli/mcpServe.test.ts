/**
 * `agent-statechart mcp-serve` as a real child process, reached by the MCP SDK's own stdio
 * client, offline (no ANTHROPIC_API_KEY): it lists run_task, runs tasks the offline model
 * understands in the workspace, keeps stdout for the protocol, and stops when the client goes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleCli } from './cliProcess.js';

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'mcp-serve-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function textOf(result: unknown): string {
  const { content } = result as { content: Array<{ type: string; text?: string }> };
  return content.map((block) => block.text ?? '').join('\n');
}

describe('agent-statechart mcp-serve', { timeout: 60_000 }, () => {
  it('serves run_task on stdio: the offline model writes and reads a file in the workspace', async () => {
    const main = await bundleCli('cli-mcpServe');
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && name !== 'ANTHROPIC_API_KEY') env[name] = value;
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [main, 'mcp-serve', '--workspace', workspace],
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'mcp-serve-test', version: '1.0.0' });
    // Anything on stdout that is not the protocol would reach the client as an error.
    const protocolErrors: Error[] = [];
    client.onerror = (error) => protocolErrors.push(error);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['run_task']);
      expect(tools[0]?.description).toContain(workspace);

      const written = await client.callTool({
        name: 'run_task',
        arguments: { prompt: 'write notes.txt hello' },
      });
      expect(written.isError).toBeFalsy();
      expect(textOf(written)).toMatch(/^Result:/);
      expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hello\n');

      const read = await client.callTool({
        name: 'run_task',
        arguments: { prompt: 'read notes.txt', session: 'notes' },
      });
      expect(read.isError).toBeFalsy();
      expect(textOf(read)).toContain('hello');
      expect(stderr).toContain('offline scripted model (no ANTHROPIC_API_KEY)');
    } finally {
      await client.close();
    }
    expect(protocolErrors).toEqual([]);
    // Closing the client ends the server's stdin: it stops by itself, cleanly.
    expect(stderr).toContain('stopping: the client closed the connection');
  });
});
