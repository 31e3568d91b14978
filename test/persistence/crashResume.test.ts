/**
 * The crash test (issue 16): an agent in a child process runs a turn with streamed text, a retried
 * 529, two parallel tool calls (one mutating, counted in a side file), an approval and the
 * post-tools hook. An uninterrupted run gives the reference and, from its store, the list of
 * durable writes; then, for every write, a process is killed with SIGKILL right after it and a
 * new process resumes the session and finishes the turn.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTranscriptViolations, type Message } from '../../src/index.js';
import {
  type MessagesApiServer,
  overloaded,
  reply,
  type ScriptFunction,
  startMessagesApiServer,
} from '../../src/testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The child bundled once, so each of the many processes starts in a fraction of a second. */
const CHILD = join(
  HERE,
  '..',
  '..',
  'node_modules',
  '.cache',
  'agent-statechart-tests',
  'crashChild.mjs',
);
const INPUT = 'Note down milk, then read my notes.';
const UNKNOWN =
  'interrupted: the process stopped while this call was running; it may or may not have taken effect';
const run = promisify(execFile);
const directories: string[] = [];
beforeAll(async () => {
  await build({
    entryPoints: [join(HERE, 'crash', 'crashChild.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: CHILD,
    logLevel: 'error',
  });
});
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

interface ChildResult {
  messages: Message[];
  writes: string[];
  state: string;
}

/** A model that answers by the conversation, so a request sent again gets the same answer. */
function model(): ScriptFunction {
  let overloadedOnce = false;
  return (request) => {
    const last = request.messages.at(-1);
    if (typeof last?.content === 'string') {
      if (!overloadedOnce) {
        overloadedOnce = true;
        return overloaded();
      }
      return reply(
        [
          { type: 'text', text: 'I will note it down and read your notes.' },
          { type: 'tool_use', id: 'toolu_append', name: 'append_side', input: { line: 'milk' } },
          { type: 'tool_use', id: 'toolu_read', name: 'read_notes', input: {} },
        ],
        { textChunkSize: 6 },
      );
    }
    return reply('All done: milk is noted, and your notes say to remember it.', {
      textChunkSize: 8,
    });
  };
}

interface World {
  directory: string;
  settings: Record<string, unknown>;
  sideFile: string;
  server: MessagesApiServer;
}

async function world(): Promise<World> {
  const directory = await mkdtemp(join(tmpdir(), 'crash-'));
  directories.push(directory);
  const workspace = join(directory, 'workspace');
  await run('git', ['init', '-q', workspace]);
  await writeFile(join(workspace, 'notes.txt'), 'remember the milk\n');
  for (const args of [
    ['config', 'user.name', 'Test'],
    ['config', 'user.email', 'test@example.com'],
    ['add', '-A'],
    ['commit', '-qm', 'initial'],
  ]) {
    await run('git', args, { cwd: workspace });
  }
  const server = await startMessagesApiServer({ script: model() });
  const sideFile = join(workspace, 'side.txt');
  return {
    directory,
    sideFile,
    server,
    settings: {
      database: join(directory, 'sessions.db'),
      workspace,
      sideFile,
      baseURL: server.baseURL,
      sessionId: 'crash-test',
    },
  };
}

function child(
  settings: Record<string, unknown>,
): Promise<{ signal: string | null; result?: ChildResult; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [CHILD, JSON.stringify(settings)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    process_.on('error', reject);
    process_.on('close', (code, signal) => {
      if (signal === null && code !== 0) {
        reject(new Error(`the child exited with ${code}: ${stderr}`));
        return;
      }
      const line = stdout.trim().split('\n').at(-1);
      resolve({ signal, stderr, ...(line ? { result: JSON.parse(line) as ChildResult } : {}) });
    });
  });
}

function sideLines(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0);
}

/** The transcript with the documented difference of a resumed run taken out. */
function withoutUnknownResults(messages: Message[], reference: Message[]): Message[] {
  return messages.map((message, index) => {
    if (typeof message.content === 'string') return message;
    const referenceBlocks = reference[index]?.content;
    return {
      ...message,
      content: message.content.map((block, position) =>
        block.type === 'tool_result' && block.content === UNKNOWN && Array.isArray(referenceBlocks)
          ? referenceBlocks[position]!
          : block,
      ),
    };
  });
}

async function inBatches<T>(
  items: T[],
  size: number,
  each: (item: T) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    await Promise.all(items.slice(start, start + size).map(each));
  }
}

describe('a session killed at every durable write', () => {
  it(
    'resumes in a new process and finishes the turn: nothing lost, nothing done twice',
    { timeout: 240_000 },
    async () => {
      const reference = await world();
      const { result } = await child({ ...reference.settings, input: INPUT });
      await reference.server.close();
      if (result === undefined) throw new Error('the reference run printed nothing');
      expect(result.state).toBe('WaitingForUserInput');
      expect(sideLines(await readFile(reference.sideFile, 'utf8'))).toEqual(['milk']);
      // Every boundary between two writes, with the work between them done: just before each
      // write from the second on (the first stores the user's input: before it, nothing was
      // acknowledged), and just after the last.
      const boundaries = result.writes.map(
        (_, index): { killBeforeWrite: number } | { killAfterWrite: number } =>
          index === 0 ? { killAfterWrite: result.writes.length } : { killBeforeWrite: index + 1 },
      );
      // The turn writes its input, the 529, the response, the approval, each tool's start and
      // outcome, the hook's start and result, the final response and the checkpoint at rest.
      expect(boundaries.length).toBeGreaterThanOrEqual(12);

      const outcomes: string[] = [];
      await inBatches(boundaries, 3, async (boundary) => {
        const crash = await world();
        try {
          const killed = await child({ ...crash.settings, input: INPUT, ...boundary });
          expect(killed.signal, `${JSON.stringify(boundary)}: ${killed.stderr}`).toBe('SIGKILL');
          const resumed = await child(crash.settings);
          const messages = resumed.result?.messages ?? [];
          const where =
            'killBeforeWrite' in boundary
              ? `killed before write ${boundary.killBeforeWrite} (${result.writes[boundary.killBeforeWrite - 1]})`
              : `killed after the last write`;
          expect(findTranscriptViolations(messages), where).toEqual([]);
          const inputs = messages.filter((message) => message.content === INPUT);
          expect(inputs, where).toHaveLength(1);
          const side = sideLines(await readFile(crash.sideFile, 'utf8').catch(() => ''));
          expect(side.length, where).toBeLessThanOrEqual(1);
          expect(withoutUnknownResults(messages, result.messages), where).toEqual(result.messages);
          const unknown = JSON.stringify(messages).includes('may or may not have taken effect');
          outcomes.push(
            `${where}: ${side.length === 1 ? 'appended once' : 'not appended'}${unknown ? ', reported as unknown' : ''}`,
          );
        } finally {
          await crash.server.close();
        }
      });
      console.log(
        [
          `boundaries exercised: ${boundaries.length}`,
          ...result.writes.map((write, index) => `  write ${index + 1}: ${write}`),
          ...outcomes.sort(),
        ].join('\n'),
      );
    },
  );
});
