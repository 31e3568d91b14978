/** `agent-statechart diagram`: formats, output file, other machines, and errors that say the fix. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDiagramCommand } from '../../src/cli/diagramCommand.js';
import { parseMermaid } from './mermaidParser.js';

const fixtures = resolve(import.meta.dirname, 'fixtures');

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runDiagramCommand(argv, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
  });
  return { code, stdout, stderr };
}

describe('agent-statechart diagram', () => {
  it('prints a valid Mermaid diagram of the agent by default, transient edges included', async () => {
    const { code, stdout, stderr } = await run('--format', 'mermaid');
    expect([code, stderr]).toEqual([0, '']);
    await expect(parseMermaid(stdout)).resolves.toBeDefined();
    expect(stdout).toContain('Deciding --> ExecutingTools : always [hasToolCalls]');
    expect((await run()).stdout).toBe(stdout);
  });

  it('prints DOT, SVG and the JSON graph', async () => {
    expect((await run('--format', 'dot')).stdout).toMatch(/^digraph "agent" \{/);
    expect((await run('--format', 'svg')).stdout).toMatch(/^<svg xmlns=/);
    const graph = JSON.parse((await run('--format', 'json')).stdout) as {
      root: { children: { path: string }[] };
    };
    expect(graph.root.children).toHaveLength(7);
  });

  it('writes to --out and says so on stderr', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'diagram-'));
    try {
      const out = join(directory, 'agent.svg');
      const { code, stdout, stderr } = await run('--format', 'svg', '--out', out);
      expect([code, stdout]).toEqual([0, '']);
      expect(stderr).toContain(`to ${out}`);
      expect(await readFile(out, 'utf8')).toMatch(/data-state="CallingLlm"/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('draws another machine from a .js module, by export or default export', async () => {
    const byName = await run('--machine', `${join(fixtures, 'plainMachine.mjs')}:toggleMachine`);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toContain('  Off --> On : TOGGLE\n');
    const byDefault = await run('--machine', join(fixtures, 'plainMachine.mjs'));
    expect(byDefault.stdout).toBe(byName.stdout);
  });

  it('draws a machine from a .ts module when TypeScript can be loaded', async () => {
    const { code, stdout } = await run(
      '--machine',
      `${join(fixtures, 'nestedMachine.ts')}:nestedMachine`,
      '--format',
      'json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id: 'form' });
  });

  it('refuses an unknown format, naming the ones there are', async () => {
    const { code, stderr } = await run('--format', 'png');
    expect(code).toBe(2);
    expect(stderr).toContain("unknown format 'png'; use one of: mermaid, dot, svg, json");
    expect(stderr).toContain('usage: agent-statechart diagram');
  });

  it('names the machines a module exports when the export is missing', async () => {
    const { code, stderr } = await run('--machine', `${join(fixtures, 'plainMachine.mjs')}:nope`);
    expect(code).toBe(1);
    expect(stderr).toContain("has no export 'nope'; machines it exports: default, toggleMachine");
  });

  it('refuses an export that is not a machine', async () => {
    const { code, stderr } = await run(
      '--machine',
      `${join(fixtures, 'plainMachine.mjs')}:notAMachine`,
    );
    expect(code).toBe(1);
    expect(stderr).toContain("export 'notAMachine' is an object, not an XState v5 machine");
  });

  it('reports a module that cannot be loaded', async () => {
    const { code, stderr } = await run('--machine', './does-not-exist.js:machine');
    expect(code).toBe(1);
    expect(stderr).toContain("could not load './does-not-exist.js'");
  });
});
