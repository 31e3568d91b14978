/**
 * A parent whose subagent is at work, killed at every durable write of either session (they
 * share the store): just before the store takes each write, and just after the last. A new
 * process resumes the parent, which resumes the subagent in its own stored session, and the turn
 * finishes as if nothing had happened: one subagent session, one task prompt in it, the side
 * effect at most once (and certainly once when its result says so), every log replaying to the
 * chart it ended in. Run on SQLite, and on PostgreSQL when a server can be started.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findTranscriptViolations, type Message, type StoredEntry } from '../../src/index.js';
import type { SubagentLink } from '../../src/persistence/subagentSessions.js';
import { startMessagesApiServer } from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import {
  type ChildResult as CrashChildResult,
  type CrashStore,
  describeOnStores,
  inBatches,
  runChild,
  useTempDirectories,
} from './crash/childRuns.js';
import { countEvents, durableView, replayLog } from './logChecks.js';
import { CHILD_ANSWER, CHILD_CONFIG, PARENT_CONFIG, treeModel } from './subagent/subagentTurn.js';

interface ChildResult extends CrashChildResult {
  children: Array<{ sessionId: string; link: SubagentLink; log: StoredEntry[] }>;
}

let childScript = '';
beforeAll(async () => {
  const directory = await bundleChild('subagent-crash', [
    'test/persistence/subagent/subagentChild.ts',
  ]);
  childScript = join(directory, 'subagentChild.mjs');
});
const tempDirectory = useTempDirectories('subagent-crash-');
const child = (settings: Record<string, unknown>) => runChild<ChildResult>(childScript, settings);

/** Tool call ids differ between runs (the server numbers them): compared without them. */
function withoutIds(messages: readonly Message[]): unknown {
  return JSON.parse(JSON.stringify(messages).replace(/toolu_test_\d+_\d+/g, 'toolu_*'));
}

function lastText(messages: readonly Message[]): string {
  const content = messages.at(-1)?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The outcome the subagent's `append_side` call was answered with. */
function appendResult(messages: readonly Message[]): string | undefined {
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'tool_result' && block.tool_use_id === 'toolu_note') {
        return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
      }
    }
  }
  return undefined;
}

/** What every finished run must show. */
async function expectFinished(
  result: ChildResult,
  world: { sideFile: string; settings: { sessionId: string } },
  where: string,
) {
  const {
    sideFile,
    settings: { sessionId },
  } = world;
  expect(result.state, where).toBe('WaitingForUserInput');
  expect(findTranscriptViolations(result.messages), where).toEqual([]);
  expect(lastText(result.messages), where).toBe(`Done: ${CHILD_ANSWER}`);
  const parent = replayLog(result.log, PARENT_CONFIG);
  expect(parent.refused, where).toEqual([]);
  expect(durableView(parent.core), where).toEqual(durableView(result));

  // One subagent session, for the task call the parent's transcript holds, its prompt sent once.
  expect(result.children, where).toHaveLength(1);
  const [only] = result.children;
  const taskCall = JSON.stringify(result.messages).match(
    /"id":"(toolu_test_\d+_\d+)","name":"task"/,
  );
  expect(only!.link, where).toEqual({
    parentSessionId: sessionId,
    callId: taskCall?.[1],
    agent: 'researcher',
    depth: 1,
    agentPath: ['researcher'],
    rootSessionId: sessionId,
    mode: 'bypassPermissions',
  });
  expect(only!.sessionId, where).toBe(`${sessionId}/${taskCall?.[1]}`);
  expect(countEvents(only!.log, 'UserInput'), where).toBe(1);
  const subagent = replayLog(only!.log, CHILD_CONFIG);
  expect(subagent.refused, where).toEqual([]);
  expect(subagent.core.state, where).toBe('WaitingForUserInput');
  const childMessages = subagent.core.context.messages;
  expect(findTranscriptViolations(childMessages), where).toEqual([]);
  expect(childMessages[0], where).toEqual({ role: 'user', content: 'research alpha' });
  expect(lastText(childMessages), where).toBe(CHILD_ANSWER);

  // The side effect ran at most once, and certainly once when its result says it did.
  const lines = (await readFile(sideFile, 'utf8')).split('\n').filter(Boolean);
  expect(lines.length, where).toBeLessThanOrEqual(1);
  if (appendResult(childMessages) === 'appended alpha') expect(lines, where).toEqual(['alpha']);
  return childMessages;
}

/**
 * On PostgreSQL, kill only where the sessions hand over (SQLite runs every write): the parent's
 * response and task start, the subagent's first write, and the parent taking the answer.
 */
const HANDOVERS = [3, 4, 5, 13, 14];

async function world(kind: CrashStore, sessionId: string) {
  const directory = await tempDirectory();
  const sideFile = join(directory, 'side.txt');
  await writeFile(sideFile, '');
  const server = await startMessagesApiServer({ script: treeModel() });
  return {
    server,
    sideFile,
    settings: {
      workspace: directory,
      sideFile,
      baseURL: server.baseURL,
      sessionId,
      store: kind.setting(directory),
    },
  };
}

function describeCrashes(kind: CrashStore): void {
  it(
    `${kind.name}: resumes a parent and its subagent cut short at every durable write`,
    { timeout: 240_000 },
    async () => {
      const reference = await world(kind, 'reference');
      const { result } = await child(reference.settings);
      await reference.server.close();
      if (result === undefined) throw new Error('the reference run printed nothing');
      const referenceChild = await expectFinished(result, reference, 'the reference run');
      expect(appendResult(referenceChild)).toBe('appended alpha');
      // The parent's input, call and response; the task recorded as started before the
      // subagent's session takes anything; the subagent's turn, its session at rest before the
      // parent takes its answer; then the parent's end.
      expect(result.writes).toEqual([
        'UserInput',
        'started llm',
        'LlmCompleted',
        'started tool',
        'UserInput',
        'started llm',
        'LlmCompleted',
        'started tool',
        'ToolCompleted',
        'PostToolsHookCompleted',
        'started llm',
        'LlmCompleted',
        'checkpoint',
        'ToolCompleted',
        'started llm',
        'LlmCompleted',
        'checkpoint',
      ]);

      const boundaries = [
        ...result.writes
          .map((_, index) => index + 1)
          .filter((write) => kind.name === 'SQLite' || HANDOVERS.includes(write))
          .map((write) => ({ killBeforeWrite: write })),
        { killAfterWrite: result.writes.length },
      ];
      const runs: string[] = [];
      await inBatches(boundaries, 2, async (boundary) => {
        const label = JSON.stringify(boundary);
        const crash = await world(kind, `crash-${label.replace(/\W/g, '')}`);
        try {
          const killed = await child({ ...crash.settings, ...boundary });
          expect(killed.signal, `${label}: ${killed.stderr}`).toBe('SIGKILL');
          const resumed = await child(crash.settings);
          expect(resumed.result, `${label}: ${resumed.stderr}`).toBeDefined();
          await expectFinished(resumed.result!, crash, label);
          expect(withoutIds(resumed.result!.messages), label).toEqual(withoutIds(result.messages));
          runs.push(label);
        } finally {
          await crash.server.close();
        }
      });
      expect(runs).toHaveLength(boundaries.length);
    },
  );
}

describe('a subagent cut short by a crash', () => {
  describeOnStores('subagents', describeCrashes);
});
