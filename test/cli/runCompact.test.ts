/**
 * `agent-statechart run` and compaction: `/compact [instructions]` between turns (the offline
 * model writes the summary; the next request starts from it), a session with nothing to
 * compact yet says so, and a `--hooks` module's `preCompact` hook vetoes one or adds what the
 * summary must keep.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineModel } from '../../src/cli/offlineModel.js';
import { SUMMARY_HEADING } from '../../src/index.js';
import {
  type MessagesApiServer,
  type MessagesRequestBody,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { asksForSummary, textOf } from '../support/compactionRequests.js';
import { runPiped } from './pipedRun.js';

let workspace: string;
let hooksDir: string;
let server: MessagesApiServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-compact-'));
  hooksDir = await mkdtemp(join(tmpdir(), 'run-compact-hooks-'));
  await writeFile(join(workspace, 'notes.txt'), 'remember the heron\n');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  await rm(hooksDir, { recursive: true, force: true });
});

/** `run` against the offline model behind a local server, so the requests can be read. */
async function run(lines: string[], argv: string[] = []) {
  server = await startMessagesApiServer({ script: offlineModel });
  const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL };
  return runPiped(workspace, lines, argv, env);
}

function bodies(): MessagesRequestBody[] {
  return server?.requests.map((request) => request.body) ?? [];
}

describe('agent-statechart run /compact', () => {
  it('compacts the conversation between turns; the next request starts from the summary', async () => {
    const { code, printed } = await run([
      'hello there',
      'list files',
      '/compact Keep the file names.',
      'read notes.txt',
    ]);
    expect(code).toBe(0);
    expect(printed).toContain('/compact [instructions]');
    expect(printed).toContain(
      '  compacting: the model summarises the older part of the conversation\n',
    );
    expect(printed).toContain('  compacted 3 messages into a summary; 3 kept as they were\n');
    // The summary is not shown as the model's reply.
    expect(printed).not.toContain('The user asked, in order');

    const sent = bodies();
    const summaryAt = sent.findIndex(asksForSummary);
    // hello (1), list files and its answer (2), then the summary.
    expect(summaryAt).toBe(3);
    const prompt = textOf(sent[summaryAt]!.messages.at(-1)?.content);
    expect(prompt).toContain('Also: Keep the file names.');
    const next = sent[summaryAt + 1]!;
    expect(textOf(next.messages[0]?.content)).toBe(
      `${SUMMARY_HEADING}\n\nThe user asked, in order: "hello there"; "list files". Tool calls made: 0.`,
    );
    // The kept exchange (the list and its result) and the new prompt follow it.
    expect(next.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(textOf(next.messages.at(-1)?.content)).toBe('read notes.txt');
    expect(printed).toContain('⚙ read_file');
  });

  it('says there is nothing to compact yet in a conversation of one exchange', async () => {
    const { code, printed } = await run(['hello there', '/compact']);
    expect(code).toBe(0);
    expect(printed).toContain(
      '  not compacted: there is nothing to summarise yet: the latest exchange always stays as it is\n',
    );
    expect(bodies().some(asksForSummary)).toBe(false);
  });

  it("runs a --hooks module's preCompact hook: its veto is shown, its instructions reach the summary", async () => {
    const module = join(hooksDir, 'hooks.mjs');
    await writeFile(
      module,
      `export const hooks = {
  preCompact: ({ trigger, instructions }) =>
    instructions.includes('not yet')
      ? { decision: 'block', reason: 'the user is still deciding' }
      : { instructions: 'Keep what ' + trigger + ' compaction found.' },
};
`,
    );
    const { code, printed } = await run(
      ['hello there', 'list files', '/compact not yet', '/compact'],
      ['--hooks', module],
    );
    expect(code).toBe(0);
    expect(printed).toContain(`hooks from ${module}: preCompact\n`);
    expect(printed).toContain(
      '  not compacted: the preCompact hook blocked it: the user is still deciding\n',
    );
    expect(printed).toContain('  compacted 3 messages into a summary; 3 kept as they were\n');
    const summaries = bodies().filter(asksForSummary);
    expect(summaries).toHaveLength(1);
    expect(textOf(summaries[0]!.messages.at(-1)?.content)).toContain(
      'Also: Keep what manual compaction found.',
    );
  });
});
