/**
 * One recorder: a turn taken by an agent in actor mode (`createAgent`, recording what XState's
 * inspection stream shows the chart take) and the same events fed through pure mode
 * (`SessionCore`, with each side effect's start recorded as its action asks) give the same log,
 * and replaying that log from its first entry reaches the chart the live agent reached. The turn
 * has input queued during one stream and an interrupt during another: the log keeps those two
 * streams, merged, and no other.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  type AgentEvent,
  createAgent,
  createMemorySessionStore,
  createToolRegistry,
  EVENT_TRAITS,
  SessionCore,
  type SessionStore,
  type StoredEntry,
} from '../../src/index.js';
import { type MessagesApiServer, startMessagesApiServer } from '../../src/testing/index.js';
import {
  actAsThePerson,
  INPUT,
  KEPT_TEXT,
  noteModel,
  noteTools,
  noteWorkspace,
  SECOND,
} from './crash/noteTurn.js';
import { countEvents, durableView, misplacedStreams, replayLog } from './logChecks.js';

let directory: string;
let workspace: string;
let sideFile: string;
let server: MessagesApiServer;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'recorded-turn-'));
  workspace = join(directory, 'workspace');
  sideFile = await noteWorkspace(workspace);
  server = await startMessagesApiServer({ script: noteModel() });
});
afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

/** Entries as compared: what they hold, not when they were written. */
const held = (entries: StoredEntry[]) => entries.map(({ kind, data }) => ({ kind, data }));

/** A pure-mode caller's side of a side effect: its start is recorded before it would start. */
async function recordStarts(session: SessionCore, actions: AgentAction[], config: AgentConfig) {
  const mutating = new Map(config.tools?.map((spec) => [spec.name, spec.mutating === true]));
  for (const action of actions) {
    if (action.type === 'SendLlmRequest') await session.started({ effect: 'llm' });
    if (action.type === 'RunPostToolsHook') await session.started({ effect: 'hook' });
    if (action.type === 'ScheduleRetry') {
      await session.started({ effect: 'retry', delayMs: action.delayMs });
    }
    if (action.type === 'ExecuteTools') {
      for (const call of action.calls) {
        const { id: callId, name } = call;
        await session.started({ effect: 'tool', callId, name, mutating: mutating.get(name)! });
      }
    }
  }
}

describe('a turn recorded in actor mode and in pure mode', () => {
  it('gives the same log, which replays to the chart the agent reached', async () => {
    const tools = noteTools(sideFile);
    const config: AgentConfig = {
      permissions: { mode: 'default' },
      tools: createToolRegistry(tools).specs(),
    };
    const actorStore: SessionStore = createMemorySessionStore();
    const taken: AgentEvent[] = [];
    const agent = createAgent({
      workspace,
      tools,
      permissions: config.permissions,
      anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      retryDelayScale: 0.01,
      store: actorStore,
      sessionId: 'actor',
      // The events the chart takes, as XState shows them.
      inspect: (inspection) => {
        if (inspection.type !== '@xstate.event') return;
        if (inspection.actorRef.sessionId !== inspection.rootId) return;
        const type = inspection.event.type as AgentEvent['type'];
        if (EVENT_TRAITS[type] !== undefined) taken.push(inspection.event as AgentEvent);
      },
    });
    actAsThePerson(agent);
    agent.send(INPUT);
    await agent.ready;
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    await agent.recorded();
    const live = durableView(agent);
    await agent.shutdown();
    const actorLog = await actorStore.entries('actor');

    // The turn went as planned: input queued during the first answer, an interrupt during the
    // one after the tools, then the queued input's own turn.
    expect(live.stateValue).toEqual({ WaitingForUserInput: 'Ready' });
    expect(live.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(live.messages[3]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: KEPT_TEXT }],
    });
    expect(live.messages[4]).toEqual({ role: 'user', content: SECOND });

    // Pure mode, fed the same events, the starts recorded as the actions ask.
    const pureStore = createMemorySessionStore();
    const session = await SessionCore.open(pureStore, 'pure', { config });
    for (const event of taken)
      await recordStarts(session, await session.handleEvent(event), config);
    const pureLog = await pureStore.entries('pure');
    expect(held(pureLog)).toEqual(held(actorLog));
    const [actorSaved, pureSaved] = [await actorStore.load('actor'), await pureStore.load('pure')];
    expect(pureSaved?.checkpoint).toEqual(actorSaved?.checkpoint);
    expect(pureSaved?.transcript).toEqual(actorSaved?.transcript);
    expect(durableView(session.core)).toEqual(live);

    // Replayed from its first entry, the log reaches the chart the agent reached.
    const replayed = replayLog(actorLog, config);
    expect(replayed.refused).toEqual([]);
    expect(durableView(replayed.core)).toEqual(live);

    // The streams kept: the two a caller's event came into, each merged; none of the calls that
    // ended on their own (the 529, the final answer).
    expect(misplacedStreams(actorLog)).toEqual([]);
    expect(countEvents(actorLog, 'LlmStarted')).toBe(2);
    const texts = actorLog.flatMap((entry) =>
      entry.kind === 'event' && entry.data.type === 'LlmTextDelta' ? [entry.data.content] : [],
    );
    expect(texts).toHaveLength(2);
    expect('I will note it down and read your notes.'.startsWith(texts[0]!)).toBe(true);
    expect(texts[1]).toBe(KEPT_TEXT);
    // Every streamed piece the chart took, against the few the log kept.
    const streamed = taken.filter((event) => EVENT_TRAITS[event.type].streamed).length;
    expect(streamed).toBeGreaterThan(countEvents(actorLog, 'LlmStarted') + texts.length);
  });
});
