/**
 * The crash test (issue 16): an agent in a child process runs the note turn (crash/noteTurn.ts):
 * streamed text, a retried 529, input queued during a stream, two parallel tool calls (one
 * mutating, counted in a side file), an approval, the post-tools hook, an interrupt during a
 * stream and the queued input's own turn. An uninterrupted run gives the reference and, from its
 * store, the list of durable writes; then, for every write, a process is killed with SIGKILL
 * right after it and a new process resumes the session and finishes the turn. Every run's log,
 * replayed from its first entry, reaches the chart its last process reached.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  createToolRegistry,
  findTranscriptViolations,
  type Message,
  type ToolResultBlock,
} from '../../src/index.js';
import { type MessagesApiServer, startMessagesApiServer } from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import { type ChildResult, inBatches, runChild, useTempDirectories } from './crash/childRuns.js';
import { INPUT, KEPT_TEXT, noteModel, noteTools, noteWorkspace, SECOND } from './crash/noteTurn.js';
import {
  countEvents,
  durableView,
  misplacedStreams,
  replayLog,
  streamsKeptBefore,
} from './logChecks.js';

const UNKNOWN =
  'interrupted: the process stopped while this call was running; it may or may not have taken effect';
/** The child bundled once, so each of the many processes starts in a fraction of a second. */
let childScript = '';
beforeAll(async () => {
  const directory = await bundleChild('crash-resume', ['test/persistence/crash/crashChild.ts']);
  childScript = join(directory, 'crashChild.mjs');
});
const tempDirectory = useTempDirectories('crash-');

const child = (settings: Record<string, unknown>) => runChild(childScript, settings);

/** The chart's configuration in the child, as far as the chart's transitions read it. */
const CONFIG: AgentConfig = {
  permissions: { mode: 'default' },
  tools: createToolRegistry(noteTools('unused')).specs(),
};

/**
 * What every run's log must say: replayed from its first entry it reaches the chart the last
 * process reached, and it keeps the two streams a person's action came into (merged: one
 * `LlmStarted`, one `LlmTextDelta`), the one before the queued input and the one before the
 * interrupt, and no other.
 */
function expectLogOf(result: ChildResult, where: string): void {
  const replayed = replayLog(result.log, CONFIG);
  expect(replayed.refused, where).toEqual([]);
  expect(durableView(replayed.core), where).toEqual(durableView(result));
  expect(misplacedStreams(result.log), where).toEqual([]);
  expect(streamsKeptBefore(result.log), where).toEqual(['UserInput', 'Interrupt']);
  expect(countEvents(result.log, 'LlmStarted'), where).toBe(2);
  expect(countEvents(result.log, 'LlmTextDelta'), where).toBe(2);
}

interface World {
  directory: string;
  settings: Record<string, unknown>;
  sideFile: string;
  server: MessagesApiServer;
}

async function world(): Promise<World> {
  const directory = await tempDirectory();
  const workspace = join(directory, 'workspace');
  const sideFile = await noteWorkspace(workspace);
  const server = await startMessagesApiServer({ script: noteModel() });
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

/** The tool_result that answers the append (the model's `toolu_append` call). */
function appendResultOf(messages: Message[]): ToolResultBlock | undefined {
  return messages
    .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
    .find(
      (block): block is ToolResultBlock =>
        block.type === 'tool_result' && block.tool_use_id === 'toolu_append',
    );
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
      // The turn went as planned: interrupted at its last answer's first piece, then the input
      // queued during the first answer had its own turn.
      expect(result.messages.slice(3)).toEqual([
        { role: 'assistant', content: [{ type: 'text', text: KEPT_TEXT }] },
        { role: 'user', content: SECOND },
        { role: 'assistant', content: [{ type: 'text', text: 'Nothing else: milk is noted.' }] },
      ]);
      expectLogOf(result, 'the reference run');
      // Every boundary between two writes, with the work between them done: just before each
      // write from the second on (the first stores the user's input: before it, nothing was
      // acknowledged), and just after the last.
      const boundaries = result.writes.map(
        (_, index): { killBeforeWrite: number } | { killAfterWrite: number } =>
          index === 0 ? { killAfterWrite: result.writes.length } : { killBeforeWrite: index + 1 },
      );
      // The turn writes its input, the 529, the backoff's start, the timer, the stream with the
      // queued input, the response, the approval, each tool's start and outcome, the hook's start
      // and result, the stream with the interrupt, the queued input's call and its response with
      // the checkpoint at rest.
      expect(boundaries.length).toBeGreaterThanOrEqual(18);

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
          for (const input of [INPUT, SECOND]) {
            const sent = messages.filter((message) => message.content === input);
            expect(sent, `${where}: ${input}`).toHaveLength(1);
          }
          const side = sideLines(await readFile(crash.sideFile, 'utf8').catch(() => ''));
          expect([[], ['milk']], `${where}: ${side.join(', ')}`).toContainEqual(side);
          expect(withoutUnknownResults(messages, result.messages), where).toEqual(result.messages);
          expectLogOf(resumed.result!, where);
          // What the model was told of the append agrees with the side file: a success only
          // when the line is there (no line, no success).
          const told = appendResultOf(messages);
          const appended = told !== undefined && told.is_error !== true;
          if (appended)
            expect(side, `${where}: the model was told it was appended`).toEqual(['milk']);
          const unknown = JSON.stringify(messages).includes('may or may not have taken effect');
          outcomes.push(
            `${where}: ${side.length === 1 ? 'appended once' : 'not appended'}${appended ? ', reported done' : ''}${unknown ? ', reported as unknown' : ''}`,
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
