/**
 * `agent-statechart run` puts the model's questions (the `ask_user` tool) to the person at the
 * terminal, through a pipe as they would type: numbered choices, several numbers for a
 * multi-select question, their own words, nothing; and a stored session whose input ended at a
 * question asks it again when resumed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type MessagesApiServer,
  reply,
  type Script,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { runPiped } from './pipedRun.js';

const exec = promisify(execFile);
let workspace: string;
let server: MessagesApiServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-questions-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
});

/** `run` with `lines` piped in, then the end of the input; what it printed. */
function run(lines: string[], argv: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return runPiped(workspace, lines, argv, env);
}

/** The environment that points `run` at a local Messages API server playing `script`. */
async function scriptedModel(script: Script): Promise<NodeJS.ProcessEnv> {
  server = await startMessagesApiServer({ script });
  return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL };
}

/** The `tool_result` blocks of the `index`th request's last message. */
function toolResults(index: number): unknown {
  return server?.requests[index]?.body.messages.at(-1)?.content;
}

const database = {
  header: 'Database',
  question: 'Which database should the service use?',
  options: [
    { label: 'PostgreSQL', description: 'shared, managed' },
    { label: 'SQLite', description: 'one file' },
  ],
};
const features = {
  header: 'Features',
  question: 'Which features come first?',
  options: [{ label: 'Search' }, { label: 'Export' }, { label: 'Sharing' }],
  multiSelect: true,
};

describe('agent-statechart run, asked by the model', () => {
  it('shows each question with numbered choices and answers with the labels picked', async () => {
    const env = await scriptedModel([
      reply([
        { type: 'text', text: 'A few questions first.' },
        { type: 'tool_use', name: 'ask_user', input: { questions: [database, features] } },
      ]),
      reply('Noted.'),
    ]);
    const { code, printed } = await run(['plan the service', '2', '3, 1'], [], env);
    expect(code).toBe(0);
    expect(printed).toContain(
      [
        '  ? [Database] (1/2) Which database should the service use?',
        '    1. PostgreSQL — shared, managed',
        '    2. SQLite — one file',
        '  (a number, or your own answer; empty for none)',
        'answer> ',
      ].join('\n'),
    );
    expect(printed).toContain(
      [
        '  ? [Features] (2/2) Which features come first?',
        '    1. Search',
        '    2. Export',
        '    3. Sharing',
        '  (numbers separated by commas, or your own answer; empty for none)',
        'answer> ',
      ].join('\n'),
    );
    expect(printed).toContain('  ✓ ask_user\n');
    expect(printed).toContain('claude> Noted.');
    expect(toolResults(1)).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        content:
          'The user answered:\n[Database] Which database should the service use?\n→ SQLite\n' +
          '[Features] Which features come first?\n→ Sharing, Search',
      }),
    ]);
  });

  it('takes words of the user’s own, an empty line for no answer, and asks again for a number that picks nothing', async () => {
    const env = await scriptedModel([
      reply([
        {
          type: 'tool_use',
          name: 'ask_user',
          input: {
            questions: [
              database,
              { header: 'Name', question: 'What is the service called?' },
              { ...database, header: 'Cache' },
            ],
          },
        },
      ]),
      reply('Noted.'),
    ]);
    const { printed } = await run(
      ['plan the service', '7', 'a DuckDB file', '', '1,2', '1'],
      [],
      env,
    );
    expect(printed).toContain('  (pick 1 to 2, or type your own answer)\nanswer> ');
    expect(printed).toContain('  (pick one number: this question takes one choice)\nanswer> ');
    expect(printed).toContain(
      '  ? [Name] (2/3) What is the service called?\n  (your answer; empty for none)\nanswer> ',
    );
    expect(toolResults(1)).toEqual([
      expect.objectContaining({
        content:
          'The user answered:\n[Database] Which database should the service use?\n→ a DuckDB file\n' +
          '[Name] What is the service called?\n→ (no answer)\n' +
          '[Cache] Which database should the service use?\n→ PostgreSQL',
      }),
    ]);
  });

  it('asks the offline model’s questions too, its choices after the question mark', async () => {
    const { printed } = await run(['ask Which database? PostgreSQL | SQLite', '2']);
    expect(printed).toContain(
      '  ? [Question] Which database?\n    1. PostgreSQL\n    2. SQLite\n  (a number, or your own answer; empty for none)\nanswer> ',
    );
    expect(printed).toContain(
      'offline model> Result:\nThe user answered:\n[Question] Which database?\n→ SQLite',
    );
  });

  it('leaves a question open when the input ends there; the resumed session asks it again', async () => {
    const first = await run(['ask Which database? PostgreSQL | SQLite'], ['--session', 'plan']);
    expect(first.code).toBe(0);
    expect(first.printed).toContain('  ? [Question] Which database?');
    expect(first.printed).not.toContain('ask_user: ');

    const second = await run(['1'], ['--session', 'plan']);
    expect(second.code).toBe(0);
    expect(second.printed).toMatch(/session plan · resumed from .* · 2 messages/);
    expect(second.printed).toContain('  ? [Question] Which database?\n    1. PostgreSQL');
    expect(second.printed).toContain(
      'offline model> Result:\nThe user answered:\n[Question] Which database?\n→ PostgreSQL',
    );
    // The answer finished the turn before the prompt came back.
    const answered = second.printed.indexOf('→ PostgreSQL');
    expect(second.printed.indexOf('you> ', answered)).toBeGreaterThan(answered);
  });

  it('answers a question the input never answered as cancelled when there is no session to keep it', async () => {
    const env = await scriptedModel([
      reply([{ type: 'tool_use', name: 'ask_user', input: { questions: [database] } }]),
    ]);
    const { code, printed } = await run(['plan the service'], [], env);
    expect(code).toBe(0);
    expect(printed).toContain(
      '✗ ask_user: cancelled: the agent shut down before the user answered',
    );
  });
});
