/** `agent-statechart run` driven through a pipe, as a person would type into it. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRunOptions, runCommand } from '../../src/cli/runCommand.js';

const exec = promisify(execFile);
let workspace: string;

async function run(lines: string[], argv: string[] = []) {
  workspace = await mkdtemp(join(tmpdir(), 'run-cli-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const done = runCommand(['--workspace', workspace, ...argv], { input, output, env: {} });
  input.end(lines.map((line) => `${line}\n`).join(''));
  const code = await done;
  return { code, printed };
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
      'allow bash {"command":"touch made-it.txt"}? [y]es / [n]o / [a]lways',
    );
    expect(printed).toContain('✗ bash: permission denied: the user refused this bash call');
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
      "unknown option '--mood' for run; expected --workspace, --mode, --model, --session or --store",
    );
    expect(() => parseRunOptions(['--mode', 'yolo'])).toThrow(
      "--mode must be one of plan, default, acceptEdits, bypassPermissions; got 'yolo'",
    );
    expect(parseRunOptions(['--workspace', 'x']).workspace).toBe(resolve('x'));
  });
});
