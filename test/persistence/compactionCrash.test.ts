/**
 * A compaction a crash cut short: an agent in a child process (createAgent, the real SDK against
 * the local Messages API server) takes the input that makes its stored session compact before
 * the request goes out. An uninterrupted run gives the reference and its list of durable writes;
 * then, for every write, a process is killed with SIGKILL just before it (and once just after
 * the last), and a new process resumes the session and finishes the turn. Run on SQLite, and on
 * PostgreSQL when a server can be started.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findTranscriptViolations, type Message, SUMMARY_HEADING } from '../../src/index.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import type { StoredSession } from '../../src/persistence/sessionStore.js';
import { startMessagesApiServer } from '../../src/testing/index.js';
import { bundleChild } from '../support/bundleChild.js';
import {
  ANSWER,
  COMPACTION,
  compactionModel,
  history,
  INPUT,
  SUMMARY,
} from './compaction/compactionTurn.js';
import {
  type ChildResult as CrashChildResult,
  type CrashStore,
  describeOnStores,
  inBatches,
  runChild,
  useTempDirectories,
} from './crash/childRuns.js';
import { openStoreSetting } from './crash/childSession.js';
import { countEvents, durableView, replayLog } from './logChecks.js';

const CONFIG = { compaction: COMPACTION };

interface ChildResult extends CrashChildResult {
  loaded: StoredSession;
}

let childScript = '';
beforeAll(async () => {
  const directory = await bundleChild('compaction-crash', [
    'test/persistence/compaction/compactionChild.ts',
  ]);
  childScript = join(directory, 'compactionChild.mjs');
});
const tempDirectory = useTempDirectories('compaction-crash-');

const child = (settings: Record<string, unknown>) => runChild<ChildResult>(childScript, settings);

/**
 * One run's world: a workspace, a session seeded with a history that nearly fills the window
 * (stored before any process touches it), and a model server.
 */
async function world(kind: CrashStore, sessionId: string) {
  const directory = await tempDirectory();
  const store = kind.setting(directory);
  const seeding = openStoreSetting(store);
  await SessionCore.open(seeding, sessionId, { config: CONFIG, messages: history() });
  await seeding.close();
  const server = await startMessagesApiServer({ script: compactionModel() });
  return {
    server,
    settings: { workspace: directory, baseURL: server.baseURL, sessionId, store },
  };
}

/** What every finished run must show, the reference's transcript being `reference`. */
function expectFinished(result: ChildResult, reference: Message[], where: string): void {
  expect(result.state, where).toBe('WaitingForUserInput');
  expect(result.messages, where).toEqual(reference);
  expect(findTranscriptViolations(result.messages), where).toEqual([]);
  expect(result.context.window.compactions, where).toBe(1);
  // The log, replayed from its first entry on the seeded history, reaches the same chart.
  const replayed = replayLog(result.log, CONFIG, history());
  expect(replayed.refused, where).toEqual([]);
  expect(durableView(replayed.core), where).toEqual(durableView(result));
  // The stored checkpoint covers the active transcript, not the history it replaced.
  expect(result.loaded.checkpoint?.messageCount, where).toBe(reference.length);
  expect(result.loaded.transcript, where).toHaveLength(reference.length);
}

function describeCrashes(kind: CrashStore): void {
  it(
    `${kind.name}: resumes a compaction cut short at every durable write`,
    { timeout: 180_000 },
    async () => {
      const reference = await world(kind, 'reference');
      const { result } = await child(reference.settings);
      await reference.server.close();
      if (result === undefined) throw new Error('the reference run printed nothing');
      // The cut comes before an assistant message: the summary (a user message) goes before it.
      const kept = history().slice(-1);
      expect(result.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: `${SUMMARY_HEADING}\n\n${SUMMARY}` }] },
        ...kept,
        { role: 'user', content: INPUT },
        { role: 'assistant', content: [{ type: 'text', text: ANSWER }] },
      ]);
      expectFinished(result, result.messages, 'the reference run');
      // The input, the summary call's start, the summary, the next call's start (its actor
      // starts in the same step), the checkpoint that follows a compaction at once, the answer
      // and the checkpoint at rest.
      expect(result.writes).toEqual([
        'UserInput',
        'started llm',
        'LlmCompleted',
        'started llm',
        'checkpoint',
        'LlmCompleted',
        'checkpoint',
      ]);

      const boundaries = [
        ...result.writes.map((_, index) => ({ killBeforeWrite: index + 1 })),
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
          const { log } = resumed.result!;
          expectFinished(resumed.result!, result.messages, label);
          expect(durableView(resumed.result!), label).toEqual(durableView(result));
          // One summary and one answer were stored, whatever was cut short.
          expect(countEvents(log, 'LlmCompleted'), label).toBe(2);
          // A process stopped with the compaction or the request in flight was resumed there;
          // the summary is asked for again only when the stopped process had asked for it and
          // its answer was not stored.
          const before = 'killBeforeWrite' in boundary ? boundary.killBeforeWrite : 0;
          const inFlight = before > 1 && before < result.writes.length;
          expect(countEvents(log, 'Resume'), label).toBe(inFlight ? 1 : 0);
          const summaryCalls = crash.server.requests.filter((request) =>
            JSON.stringify(request.body).includes('Stop here and write a summary'),
          ).length;
          const asked = before === 3 ? 2 : 1;
          expect(summaryCalls, label).toBe(asked);
          runs.push(`${label}: resumed, ${summaryCalls} summary call(s)`);
        } finally {
          await crash.server.close();
        }
      });
      expect(runs).toHaveLength(boundaries.length);
    },
  );
}

describe('a compaction cut short by a crash', () => {
  describeOnStores('compaction', describeCrashes);
});
