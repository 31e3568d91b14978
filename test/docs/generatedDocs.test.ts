/**
 * Generated docs cannot drift: every file the docs script writes is regenerated in memory and
 * compared with the committed one.
 */
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_API_DIRECTORY, generatedDocs } from '../../scripts/docs/generatedDocs.js';
import { DOCS_COMMAND, listFiles } from '../../scripts/generateDocs.js';
import { parseMermaid } from '../diagram/mermaidParser.js';

const root = resolve(import.meta.dirname, '../..');
let docs: Map<string, string>;

beforeAll(async () => {
  docs = await generatedDocs(root);
}, 120_000);

async function committed(path: string): Promise<string | null> {
  return readFile(join(root, path), 'utf8').catch(() => null);
}

describe('generated docs', () => {
  it('are all committed exactly as the docs script writes them', async () => {
    const stale: string[] = [];
    for (const [path, content] of docs) {
      if ((await committed(path)) !== content) stale.push(path);
    }
    expect(stale, `stale generated docs; run ${DOCS_COMMAND} and commit the result`).toEqual([]);
  });

  it('leave no API page behind for a symbol that is gone', async () => {
    const files = await listFiles(join(root, GENERATED_API_DIRECTORY));
    const orphans = files
      .map((file) => relative(root, file).split('\\').join('/'))
      .filter((path) => !docs.has(path));
    expect(orphans, `orphaned API pages; run ${DOCS_COMMAND}`).toEqual([]);
  });

  it('show a Mermaid block mermaid parses, the SVG and the transition table', async () => {
    const page = docs.get('docs/state-machine.md') ?? '';
    const block = /```mermaid\n([\s\S]*?)```/.exec(page)?.[1];
    if (block === undefined) throw new Error('docs/state-machine.md has no mermaid block');
    await expect(parseMermaid(block)).resolves.toMatchObject({ diagramType: 'stateDiagram' });
    expect(page).toContain('![The agent statechart');
    expect(page).toContain('](./state-machine.svg)');
    expect(page).toMatch(
      /\| `CallingLlm\.Streaming` +\| `LlmError` +\| `retryableError && attemptsLeft` +\|/,
    );
    expect(docs.get('docs/state-machine.svg')).toMatch(/^<svg /);
  });

  it('show the states nested in WaitingForUserInput, the grace period after an interrupt included', async () => {
    const page = docs.get('docs/state-machine.md') ?? '';
    const block = /```mermaid\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const nested = /^ {2}state WaitingForUserInput \{\n([\s\S]*?)^ {2}\}$/m.exec(block)?.[1];
    expect(nested, 'WaitingForUserInput drawn as a composite state').toBeDefined();
    expect(nested).toContain('[*] --> Ready');
    expect(nested).toMatch(/^ +SettlingCancelledCalls --> Ready : always \[!toolsSettling\]/m);
    expect(nested).toMatch(/^ +SettlingCancelledCalls : invoke toolGraceTimer$/m);
    expect(block).toMatch(
      /^ +ExecutingTools --> SettlingCancelledCalls : Interrupt \[toolCallsNeedGrace\]/m,
    );
    expect(page).toMatch(
      /\| `WaitingForUserInput\.SettlingCancelledCalls` +\| `ToolGraceExpired` +\|/,
    );
    // Five in WaitingForUserInput, four in CallingLlm, two in ProcessingLlmResponse; three
    // regions of ExecutingTools and two states in each.
    expect(page).toContain('23 states nested in them');
    expect(nested).toMatch(/^ +CheckingPrompt : invoke hook$/m);
    expect(block).toMatch(/^ +CheckingStop : invoke hook$/m);
    // The two states of a compaction, in WaitingForUserInput and in CallingLlm.
    expect(nested).toMatch(/^ +WaitingForUserInput_Compacting : invoke llm$/m);
    expect(block).toMatch(/^ +Sizing --> Streaming : always \[!compactionDue\]$/m);
    expect(block).toMatch(/^ +CallingLlm_CheckingCompaction : invoke hook$/m);
    expect(page).toMatch(/\| `WaitingForUserInput\.Ready` +\| `Compact` +\|/);
    const svg = docs.get('docs/state-machine.svg') ?? '';
    for (const state of [
      'WaitingForUserInput.Ready',
      'WaitingForUserInput.SettlingCancelledCalls',
      'WaitingForUserInput.Compacting',
      'CallingLlm.Compacting',
    ]) {
      expect(svg).toContain(`data-state="${state}"`);
    }
    // The committed page is this one (the test above checks every file; this names the state).
    expect(await committed('docs/state-machine.md')).toContain('SettlingCancelledCalls');
  });

  it('document the public API, the diagram functions included', () => {
    const pages = [...docs.keys()].filter((path) => path.startsWith(`${GENERATED_API_DIRECTORY}/`));
    const all = pages.map((path) => docs.get(path) ?? '').join('\n');
    for (const symbol of ['createAgent', 'AgentCore', 'toMermaid', 'startMessagesApiServer']) {
      expect(all).toContain(`### ${symbol}`);
    }
  });
});
