/**
 * The lint rule that keeps imports pointing one way between the layers of src/
 * (docs/architecture.md): `npm run check` runs it over the tree; these tests show it refuses what
 * it must and lets the rest through, and that the project's own lint configuration runs it.
 */
import { ESLint, Linter } from 'eslint';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import layers from '../../scripts/lint/importLayers.js';

const SRC = resolve('src');

function lint(file: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { layers },
        rules: { 'layers/import-layers': ['error', { srcRoot: SRC }] },
      },
    ],
    resolve(SRC, file),
  );
  return messages.map((message) => message.message);
}

describe('the import-layers rule', () => {
  it('refuses a layer importing one above it', () => {
    const [problem] = lint(
      'persistence/openSession.ts',
      "import { createAgent } from '../agent/index.js';",
    );
    expect(problem).toContain('src/persistence may not import src/agent');
  });

  it('refuses persistence importing the actors: it uses only the chart', () => {
    expect(
      lint('persistence/x.ts', "import { runToolCall } from '../actors/index.js';"),
    ).toHaveLength(1);
  });

  it("refuses another layer's private file, naming the index to use", () => {
    const [problem] = lint(
      'agent/x.ts',
      "import { buildRequest } from '../machine/transcript.js';",
    );
    expect(problem).toContain("import '../machine/index.js'");
  });

  it('checks type-only imports, re-exports and dynamic imports alike', () => {
    expect(lint('actors/x.ts', "import type { Agent } from '../agent/index.js';")).toHaveLength(1);
    expect(lint('inspect/x.ts', "export { x } from '../agent/index.js';")).toHaveLength(1);
    expect(lint('machine/x.ts', "const m = await import('../persistence/index.js');")).toHaveLength(
      1,
    );
    expect(
      lint(
        'actors/tools/builtins/x.ts',
        "import type { Message } from '../../../machine/types.js';",
      ),
    ).toHaveLength(1);
  });

  it('lets a layer use the ones below it through their index, and its own files freely', () => {
    expect(lint('agent/x.ts', "import { agentMachine } from '../machine/index.js';")).toEqual([]);
    expect(lint('dbos/x.ts', "import { notificationsOfAction } from '../agent/index.js';")).toEqual(
      [],
    );
    expect(lint('agent/x.ts', "import { Agent } from './agent.js';")).toEqual([]);
    expect(lint('index.ts', "export { createAgent } from './agent/index.js';")).toEqual([]);
    expect(lint('machine/x.ts', "import { setup } from 'xstate';")).toEqual([]);
  });

  it("runs in the project's own lint configuration, the one npm run check uses", async () => {
    const file = resolve(SRC, 'persistence/storeRules.ts');
    const text = `${await readFile(file, 'utf8')}\nexport { createAgent } from '../agent/index.js';\n`;
    const [result] = await new ESLint({ cache: false }).lintText(text, { filePath: file });
    const problems = result!.messages.filter((m) => m.ruleId === 'layers/import-layers');
    expect(problems.map((m) => m.message)).toEqual([
      expect.stringContaining('src/persistence may not import src/agent'),
    ]);
  }, 60_000);
});
