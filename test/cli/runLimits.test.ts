/**
 * `agent-statechart run --session NAME --max-turns N` / `--max-budget USD`: the session records
 * its limits (they are guards of the chart), so its log is read back — `sessions show`, a replay
 * from its first entry as `inspect --session` does — stopping where the turn stopped; a resume
 * runs with them, and one that gives another limit is refused before anything starts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineModel } from '../../src/cli/offlineModel.js';
import { cliChartConfig } from '../../src/cli/sessionConfig.js';
import { sessionsInProcess } from './sessionsInProcess.js';
import { AgentCore } from '../../src/machine/index.js';
import {
  createSqliteSessionStore,
  type SessionStore,
  type StoredEntry,
} from '../../src/persistence/index.js';
import {
  type MessagesApiServer,
  type MessagesRequestBody,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { runPiped } from './pipedRun.js';

let workspace: string;
let server: MessagesApiServer;
let store: SessionStore | undefined;

/**
 * The offline model, made never to stop: once its tools have answered it lists the files again,
 * so only `maxTurns` (or the budget) ends its turn.
 */
function runaway(request: MessagesRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  const answered =
    Array.isArray(last?.content) &&
    last.content.some((block) => (block as { type?: unknown }).type === 'tool_result');
  if (!answered) return offlineModel(request);
  return reply([{ type: 'tool_use', name: 'list_files', input: { path: '.' } }]);
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-limits-'));
  server = await startMessagesApiServer({ script: runaway });
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

/** `run` against the runaway model behind the local server, so its requests can be counted. */
function run(lines: string[], argv: string[]) {
  const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL };
  return runPiped(workspace, lines, argv, env);
}

/** The workspace's session store, closed after the test. */
function openStore(): SessionStore {
  store ??= createSqliteSessionStore({
    path: join(workspace, '.agent-statechart', 'sessions.db'),
  });
  return store;
}

/** `sessions show ID` in this process, on the test's workspace. */
const show = (sessionId: string) =>
  sessionsInProcess(['show', sessionId, '--workspace', workspace]);

/**
 * The log replayed from its first entry with the chart `cliChartConfig` gives its header's
 * metadata, as `inspect --session` replays it: where it ends, and with how many messages.
 */
function replay(
  entries: readonly StoredEntry[],
  metadata: Record<string, unknown> | undefined,
): { state: string; messages: number } {
  const core = new AgentCore(cliChartConfig(metadata));
  for (const entry of entries) if (entry.kind === 'event') core.handleEvent(entry.data);
  return { state: core.state, messages: core.context.messages.length };
}

/** The session as stored (its latest checkpoint) and as its log replays, with its metadata. */
async function storedAndReplayed(sessionId: string) {
  const sessions = openStore();
  const stored = (await sessions.list()).find((session) => session.sessionId === sessionId)!;
  const metadata = (await sessions.load(sessionId))!.header.metadata;
  const replayed = replay(await sessions.entries(sessionId), metadata);
  return { stored: { state: stored.state, messages: stored.messageCount }, replayed, metadata };
}

describe('agent-statechart run --session with limits', { timeout: 60_000 }, () => {
  it('records --max-turns, and its log is read back stopping where the turn stopped', async () => {
    const first = await run(['list files'], ['--session', 'limited', '--max-turns', '2']);
    expect(first.code).toBe(0);
    expect(first.printed).toContain('the most maxTurns (2) allows');
    expect(server.requests).toHaveLength(2);

    const { stored, replayed, metadata } = await storedAndReplayed('limited');
    expect(metadata).toMatchObject({ maxTurns: 2 });
    expect(metadata).not.toHaveProperty('maxBudgetUsd');
    expect(stored).toEqual({ state: 'WaitingForUserInput', messages: 5 });
    expect(replayed).toEqual(stored);
    // Read back without its limit, the log has the chart call the model again where the turn
    // stopped: the check above can fail.
    const entries = await openStore().entries('limited');
    expect(replay(entries, { ...metadata, maxTurns: undefined })).toEqual({
      state: 'CallingLlm',
      messages: 5,
    });

    const shown = await show('limited');
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^ {2}metadata {2}\{.*"maxTurns":2[,}]/m);
    expect(shown.out).toContain('  state     WaitingForUserInput');
    expect(shown.out).toContain('transcript (5 messages)');
    expect(shown.out).not.toMatch(/in flight|EVENT_NOT_ACCEPTED|cannot be rebuilt/);
  });

  it('resumes with the limit it records, takes the same one again, and refuses another', async () => {
    const session = ['--session', 'kept'];
    expect((await run(['list files'], [...session, '--max-turns', '2'])).code).toBe(0);
    const before = (await openStore().entries('kept')).length;

    await expect(run(['list files'], [...session, '--max-turns', '3'])).rejects.toThrow(
      "session 'kept' ran with --max-turns 2, so --max-turns 3 cannot be given to it (a session keeps the limits it was created with, since its log is read back with them); leave out --max-turns to resume it with its own, or start a new session (another --session NAME) for this limit",
    );
    await expect(run(['list files'], [...session, '--max-budget', '1'])).rejects.toThrow(
      "session 'kept' ran with no budget (no --max-budget), so --max-budget 1 cannot be given to it",
    );
    expect(await openStore().entries('kept')).toHaveLength(before);
    expect(server.requests).toHaveLength(2);

    // Without the flag it stops at its own 2 model calls again, not the default 100.
    const resumed = await run(['list files'], session);
    expect(resumed.code).toBe(0);
    expect(resumed.printed).toContain('  it runs with its own --max-turns 2\n');
    expect(resumed.printed).toContain('the most maxTurns (2) allows');
    expect(server.requests).toHaveLength(4);
    const again = await run(['list files'], [...session, '--max-turns', '2']);
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(6);

    const { stored, replayed } = await storedAndReplayed('kept');
    expect(replayed).toEqual(stored);
  });

  it('refuses --max-turns for a session that ran with the default', async () => {
    expect((await run([], ['--session', 'other'])).code).toBe(0);
    await expect(run([], ['--session', 'other', '--max-turns', '100'])).rejects.toThrow(
      "session 'other' ran with the default number of model calls per turn (no --max-turns), so --max-turns 100 cannot be given to it",
    );
  });

  it('records --max-budget with the model whose price it needs, and resumes with both', async () => {
    const session = ['--session', 'budget'];
    // The first call's cost reaches the budget: the turn stops before the next one.
    const first = await run(
      ['list files'],
      [...session, '--model', 'claude-sonnet-4-5', '--max-budget', '0.000001'],
    );
    expect(first.code).toBe(0);
    expect(server.requests).toHaveLength(1);

    const { stored, replayed, metadata } = await storedAndReplayed('budget');
    expect(metadata).toMatchObject({ maxBudgetUsd: 0.000001, model: 'claude-sonnet-4-5' });
    expect(metadata).not.toHaveProperty('maxTurns');
    expect(replayed).toEqual(stored);
    const shown = await show('budget');
    expect(shown.code, shown.err).toBe(0);

    // Resumed without flags, it keeps its model (so its budget can be priced) and its budget.
    const resumed = await run(['list files'], session);
    expect(resumed.code).toBe(0);
    expect(resumed.printed).toContain('  it runs with its own --max-budget 0.000001\n');
    expect(server.requests).toHaveLength(1);
    await expect(run([], [...session, '--max-budget', '2'])).rejects.toThrow(
      "session 'budget' ran with --max-budget 0.000001, so --max-budget 2 cannot be given to it",
    );
  });
});

describe('cliChartConfig', () => {
  it('takes the limits a session records, ignoring those the chart would refuse', () => {
    expect(
      cliChartConfig({ maxTurns: 2, maxBudgetUsd: 1.5, model: 'claude-haiku-4-5' }),
    ).toMatchObject({ maxTurns: 2, maxBudgetUsd: 1.5, model: 'claude-haiku-4-5' });
    for (const maxTurns of [0, 1.5, '2', null]) {
      expect(cliChartConfig({ maxTurns })).not.toHaveProperty('maxTurns');
    }
    for (const maxBudgetUsd of [0, -1, Infinity, '1']) {
      expect(cliChartConfig({ maxBudgetUsd, model: 'claude-haiku-4-5' })).not.toHaveProperty(
        'maxBudgetUsd',
      );
    }
    // A budget without a model that has a price cannot be kept: read back without it.
    expect(cliChartConfig({ maxBudgetUsd: 1 })).not.toHaveProperty('maxBudgetUsd');
  });

  it("takes a subagent's session down from its top session's limits, as its child ran", () => {
    const metadata = {
      mode: 'default',
      maxTurns: 7,
      maxBudgetUsd: 1,
      model: 'claude-haiku-4-5',
      agents: {
        researcher: { description: 'Reads', tools: ['read_file'] },
        checker: { description: 'Checks', tools: ['read_file'], maxTurns: 3 },
      },
    };
    const subagent = (agent: string) => ({
      ...metadata,
      subagent: {
        parentSessionId: 'top',
        callId: 'toolu_1',
        agent,
        depth: 1,
        agentPath: [agent],
        rootSessionId: 'top',
        mode: 'default',
      },
    });
    // The top session's maxTurns unless its spec names one; never the parent's budget.
    const researcher = cliChartConfig(subagent('researcher'));
    expect(researcher).toMatchObject({ maxTurns: 7, model: 'claude-haiku-4-5' });
    expect(researcher).not.toHaveProperty('maxBudgetUsd');
    expect(cliChartConfig(subagent('checker'))).toMatchObject({ maxTurns: 3 });
  });
});
