/** `agent-statechart run` driven through a pipe, as a person would type into it. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRunOptions } from '../../src/cli/runCommand.js';
import { runPiped } from './pipedRun.js';

const exec = promisify(execFile);
let workspace: string;

async function run(lines: string[], argv: string[] = [], env: NodeJS.ProcessEnv = {}) {
  workspace = await mkdtemp(join(tmpdir(), 'run-cli-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
  return runPiped(workspace, lines, argv, env);
}

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('agent-statechart run', () => {
  it('runs offline without an API key: tools, auto-commit and the current state', async () => {
    const { code, printed } = await run(
      ['write notes.txt hello there', 'read notes.txt'],
      ['--mode', 'acceptEdits'],
    );
    expect(code).toBe(0);
    expect(printed).toContain('offline scripted model (no ANTHROPIC_API_KEY)');
    expect(printed).toContain('  ⚙ write_file {"path":"notes.txt","content":"hello there\\n"}');
    expect(printed).toMatch(/⎇ committed [0-9a-f]{7}: notes\.txt/);
    expect(printed).toContain('  [PostToolsHook]');
    expect(printed).toContain('offline model> Result:\nhello there');
    expect(printed).not.toContain('claude>');
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hello there\n');
  });

  it('asks before a mutating tool in default mode and honours a refusal', async () => {
    const { printed } = await run(['run touch made-it.txt', 'n']);
    expect(printed).toContain(
      'allow bash {"command":"touch made-it.txt"}? [y]es / [n]o [why] / [a]lways',
    );
    expect(printed).toContain('✗ bash: permission denied: the user refused this bash call');
    await expect(readFile(join(workspace, 'made-it.txt'))).rejects.toThrow();
  });

  it('passes the reason of a refusal on to the model', async () => {
    const { printed } = await run(['run touch made-it.txt', 'n touch made-by-me.txt instead']);
    expect(printed).toContain(
      '✗ bash: permission denied: the user refused this bash call: touch made-by-me.txt instead',
    );
    await expect(readFile(join(workspace, 'made-it.txt'))).rejects.toThrow();
  });

  it('runs the tool once approved', async () => {
    const { printed } = await run(['run touch made-it.txt', 'y']);
    expect(printed).toContain('✓ bash');
    expect(await readFile(join(workspace, 'made-it.txt'), 'utf8')).toBe('');
  });

  it('confirms a /mode change with what the mode allows, and then acts on it', async () => {
    const { printed } = await run(['/mode plan', 'write notes.txt hi', '/mode', '/mode yolo']);
    expect(printed).toContain(
      'mode plan: read-only: tools that change files or run commands are refused',
    );
    expect(printed).toMatch(/✗ write_file: .*plan/);
    expect(printed).toContain('modes: plan, default, acceptEdits, bypassPermissions (now plan)\n');
    expect(printed.match(/modes: /g)).toHaveLength(2);
    await expect(readFile(join(workspace, 'notes.txt'))).rejects.toThrow();
  });

  it('refuses unknown options with a message that says what is expected', () => {
    expect(() => parseRunOptions(['--mood', 'happy'])).toThrow(
      "unknown option '--mood' for run; expected --workspace, --mode, --model, --session, --store, --max-turns, --max-budget, --mcp-config, --hooks, --hook-timeout, --agents or --otel",
    );
    expect(() => parseRunOptions(['--mode', 'yolo'])).toThrow(
      "--mode must be one of plan, default, acceptEdits, bypassPermissions; got 'yolo'",
    );
    expect(parseRunOptions(['--workspace', 'x']).workspace).toBe(resolve('x'));
    expect(() => parseRunOptions(['--max-turns', '0'])).toThrow(
      "--max-turns must be a whole number of model calls, 1 or more; got '0'",
    );
    expect(() => parseRunOptions(['--max-budget', 'lots'])).toThrow(
      "--max-budget must be an amount of US dollars above 0; got 'lots'",
    );
    expect(parseRunOptions(['--max-turns', '3', '--max-budget', '0.5', '--otel'])).toMatchObject({
      maxTurns: 3,
      maxBudgetUsd: 0.5,
      otel: true,
    });
  });

  it('stops a turn at --max-turns model calls, saying which limit', async () => {
    const { code, printed } = await run(
      ['write notes.txt hello'],
      ['--mode', 'acceptEdits', '--max-turns', '1'],
    );
    expect(code).toBe(0);
    expect(printed).toContain('the most maxTurns (1) allows');
    expect(printed).toContain('✓ write_file');
    expect(printed.match(/offline model> /g)).toHaveLength(1);
  });

  it('prints each span as it ends with --otel', async () => {
    const { printed } = await run(['read notes.txt'], ['--otel']);
    expect(printed).toContain('OpenTelemetry spans: printed as each span ends');
    expect(printed).toMatch(
      /\[otel\] chat claude-\S+ \d+ ms trace [0-9a-f]{8} span [0-9a-f]{8} parent [0-9a-f]{8}/,
    );
    expect(printed).toMatch(/\[otel\] execute_tool read_file .* gen_ai\.tool\.name="read_file"/);
    expect(printed).toMatch(
      /\[otel\] invoke_agent agent-statechart \d+ ms trace [0-9a-f]{8} span [0-9a-f]{8} gen_ai/,
    );
  });

  it('sends the spans with OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const bodies: string[] = [];
    const paths: string[] = [];
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      request.on('end', () => {
        paths.push(request.url ?? '');
        bodies.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((listening) => collector.listen(0, '127.0.0.1', listening));
    const { port } = collector.address() as AddressInfo;
    try {
      const { printed } = await run(['read notes.txt'], ['--otel'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      expect(printed).toContain(`OpenTelemetry spans: OTLP http://127.0.0.1:${port}/v1/traces`);
      expect(printed).not.toContain('[otel]');
      expect(paths).toContain('/v1/traces');
      expect(bodies.join('')).toContain('invoke_agent agent-statechart');
    } finally {
      collector.close();
    }
  });
});
