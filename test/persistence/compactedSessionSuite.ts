/**
 * Compaction in a durable session, run on every store (memory, SQLite, PostgreSQL): the log keeps
 * every event, the checkpoint that follows a compaction stores the records of the whole active
 * transcript again (its start changed, and every later message moved), and a reopened session
 * reads only what the active transcript needs — never the part that was summarised away.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  type AgentEvent,
  findTranscriptViolations,
  type LlmRequest,
  type LlmResponse,
  type Message,
  SUMMARY_HEADING,
} from '../../src/index.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import type { SessionStore, StoredEntry } from '../../src/persistence/sessionStore.js';
import { useStoreUnderTest, type StoreUnderTest } from './sessionStoreConformance.js';

/** A small context window, so a few turns of about a thousand characters fill it. */
export const COMPACTING_CONFIG: AgentConfig = {
  tools: [{ name: 'read_file', mutating: false }],
  compaction: { contextWindow: 2_000, threshold: 0.5, keepRecentTokens: 300 },
};

/** What the summary prompt (appended to the request that asks for the summary) starts with. */
const SUMMARY_PROMPT = 'Stop here and write a summary';

const padding = (seed: string, length: number) => `${seed} `.repeat(length).slice(0, length);

/** Input of turn `turn`: every third one asks for a tool round. */
export function turnInput(turn: number): AgentEvent {
  const ask = turn % 3 === 1 ? `read note ${turn}` : `question ${turn}`;
  return { type: 'UserInput', message: { role: 'user', content: `${ask}: ${padding(ask, 700)}` } };
}

function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => ('text' in block ? block.text : '')).join('');
}

/**
 * The model, answering by the request as a real one would (and reporting the request's size as
 * the API does, about four characters a token): a summary when asked for one, a `read_file` call
 * for a `read note` input, and text otherwise.
 */
export function answer(request: LlmRequest): LlmResponse {
  const usage = { input_tokens: Math.ceil(JSON.stringify(request).length / 4), output_tokens: 50 };
  const last = request.messages.at(-1);
  const said = textOf(last);
  if (said.includes(SUMMARY_PROMPT)) {
    const turns = request.messages.filter(
      (message) => message.role === 'user' && textOf(message).startsWith('question'),
    );
    return {
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `Summary of ${turns.length} questions so far.` }],
      },
      stopReason: 'end_turn',
      usage,
    };
  }
  if (said.startsWith('read note')) {
    const id = `toolu_${said.split(':')[0]!.split(' ').at(-1)}`;
    return {
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id, name: 'read_file', input: { path: `${id}.txt` } },
        ],
      },
      stopReason: 'tool_use',
      usage,
    };
  }
  return {
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: padding(`answer to ${said.slice(0, 12)}`, 500) }],
    },
    stopReason: 'end_turn',
    usage,
  };
}

/** What a driver saw of the chart while it drove it. */
export interface Driven {
  actions: AgentAction[];
}

/**
 * Feeds `event` and performs every action as a caller of `SessionCore` does (each effect's start
 * recorded before it starts; a `preCompact` hook lets every compaction through), until the chart
 * asks for nothing more, or until `stopAt` names an action the driver then leaves unperformed
 * (the process "stops" there).
 */
export async function drive(
  session: SessionCore,
  event: AgentEvent,
  stopAt?: (action: AgentAction) => boolean,
): Promise<Driven> {
  const seen: AgentAction[] = [];
  let pending: AgentEvent[] = [event];
  while (pending.length > 0) {
    const next: AgentEvent[] = [];
    for (const fed of pending) {
      const actions = await session.handleEvent(fed);
      for (const action of actions) {
        seen.push(action);
        if (stopAt?.(action)) return { actions: seen };
        if (action.type === 'SendLlmRequest' || action.type === 'SendCompactionRequest') {
          await session.started({ effect: 'llm' });
          next.push({ type: 'LlmCompleted', response: answer(action.request) });
        }
        if (action.type === 'RunPreCompactHook') next.push({ type: 'PreCompactDecision' });
        if (action.type === 'ExecuteTools') {
          for (const call of action.calls) {
            await session.started({
              effect: 'tool',
              callId: call.id,
              name: call.name,
              mutating: false,
            });
          }
          for (const call of action.calls) {
            next.push({
              type: 'ToolCompleted',
              callId: call.id,
              outcome: { status: 'success', output: `the note of ${call.id}` },
            });
          }
        }
      }
    }
    pending = next;
  }
  return { actions: seen };
}

/** The seqs of the entries a transcript record of `session` points at. */
function referenced(stored: { transcript: Array<{ refs: number[] }> }): Set<number> {
  return new Set(stored.transcript.flatMap((record) => record.refs));
}

const eventTypes = (entries: StoredEntry[]) =>
  entries.flatMap((entry) => (entry.kind === 'event' ? [entry.data.type] : []));

/**
 * The store under test: `open` gives a fresh one for each test, `cleanup` runs after it (the
 * store is closed first).
 */
export type CompactedStoreSubject = Pick<StoreUnderTest, 'open' | 'cleanup'>;

export function describeCompactedSession(name: string, subject: CompactedStoreSubject): void {
  describe(`${name}: a compacted session`, () => {
    let store: SessionStore;
    useStoreUnderTest(subject, (opened) => (store = opened));

    const open = () => SessionCore.open(store, 'c', { config: COMPACTING_CONFIG });

    /** Turns until the transcript has compacted `times` times, and the turn came to rest. */
    async function turnsUntilCompacted(session: SessionCore, times: number, from = 0) {
      let turn = from;
      while (session.core.context.window.compactions < times) {
        await drive(session, turnInput(turn++));
        if (turn > from + 40) throw new Error('the transcript never compacted');
      }
      return turn;
    }

    it('reloads with exactly the active transcript, reading none of what was summarised', async () => {
      const session = await open();
      const turns = await turnsUntilCompacted(session, 1);
      const active = session.core.context.messages;
      expect(textOf(active[0])).toContain(SUMMARY_HEADING);
      expect(findTranscriptViolations(active)).toEqual([]);

      const stored = (await store.load('c'))!;
      expect(stored.checkpoint?.messageCount).toBe(active.length);
      expect(stored.transcript.map((record) => record.index)).toEqual(active.map((_, i) => i));
      // The whole history stays in the log: the first input is still there, and the summary call.
      const log = await store.entries('c');
      expect(log[0]).toMatchObject({ kind: 'event', data: turnInput(0) });
      expect(eventTypes(log).filter((type) => type === 'UserInput')).toHaveLength(turns);
      // A load reads the entries the records point at and the tail, and nothing else: not the
      // summarised turns.
      const needed = referenced(stored);
      const checkpointSeq = stored.checkpoint!.seq;
      for (const entry of stored.entries) {
        if (entry.seq <= checkpointSeq)
          expect(needed.has(entry.seq), `entry ${entry.seq}`).toBe(true);
      }
      expect(stored.entries.map((entry) => entry.seq)).not.toContain(1);
      expect(stored.entries.length).toBeLessThan(log.length / 2);

      const reopened = await open();
      expect(reopened.core.context.messages).toEqual(active);
      expect(reopened.core.state).toBe('WaitingForUserInput');
      expect(reopened.core.context.window.compactions).toBe(1);
      expect(reopened.resume).toBeUndefined();
    });

    it('checkpoints as soon as a compaction before a model call is done, and resumes that call', async () => {
      const session = await open();
      let turn = 0;
      let compacted: Driven | undefined;
      while (compacted === undefined && turn < 40) {
        // The process stops once the request after the summary is about to be sent.
        const driven = await drive(
          session,
          turnInput(turn++),
          (action) =>
            action.type === 'SendLlmRequest' && session.core.context.window.compactions === 1,
        );
        if (driven.actions.some((action) => action.type === 'Compacted')) compacted = driven;
      }
      expect(compacted?.actions.map((action) => action.type)).toEqual([
        'SendCompactionRequest',
        'UsageReported',
        'Compacted',
        'SendLlmRequest',
      ]);
      const active = session.core.context.messages;
      const stored = (await store.load('c'))!;
      // The checkpoint came with the summary itself, in the middle of the turn.
      expect(stored.checkpoint).toMatchObject({
        state: 'CallingLlm',
        messageCount: active.length,
        seq: stored.head,
      });
      expect(stored.entries.filter((entry) => entry.seq > stored.checkpoint!.seq)).toEqual([]);

      const reopened = await open();
      expect(reopened.core.context.messages).toEqual(active);
      expect(reopened.core.stateValue).toEqual({ CallingLlm: 'Streaming' });
      const resumed = await reopened.handleEvent(reopened.resume!);
      const request = resumed.find((action) => action.type === 'SendLlmRequest');
      expect(request?.type === 'SendLlmRequest' && request.request.messages).toEqual(active);
    });

    it('goes on after a reload and compacts again: each reload gives the active transcript', async () => {
      let session = await open();
      let turn = await turnsUntilCompacted(session, 1);
      // A turn after the reload appends records after the compacted transcript's.
      session = await open();
      await drive(session, turnInput(turn++));
      const grown = session.core.context.messages;
      expect((await open()).core.context.messages).toEqual(grown);

      session = await open();
      turn = await turnsUntilCompacted(session, 2, turn);
      const active = session.core.context.messages;
      const stored = (await store.load('c'))!;
      expect(stored.transcript).toHaveLength(active.length);
      const reopened = await open();
      expect(reopened.core.context.messages).toEqual(active);
      expect(reopened.core.context.window.compactions).toBe(2);
      // Every input is in the log, compacted or not.
      expect(
        eventTypes(await store.entries('c')).filter((type) => type === 'UserInput'),
      ).toHaveLength(turn);
    });

    it('compacts at rest on a Compact event, and reloads the compacted transcript', async () => {
      const session = await SessionCore.open(store, 'c', {
        config: {
          ...COMPACTING_CONFIG,
          compaction: { ...COMPACTING_CONFIG.compaction, contextWindow: 1_000_000 },
        },
      });
      for (let turn = 0; turn < 4; turn++) await drive(session, turnInput(turn));
      const before = session.core.context.messages.length;
      const driven = await drive(session, {
        type: 'Compact',
        instructions: 'Keep the notes read.',
      });
      expect(driven.actions.map((action) => action.type)).toContain('Compacted');
      const active = session.core.context.messages;
      expect(active.length).toBeLessThan(before);
      const reopened = await SessionCore.open(store, 'c', { config: COMPACTING_CONFIG });
      expect(reopened.core.context.messages).toEqual(active);
      expect((await store.load('c'))!.checkpoint?.messageCount).toBe(active.length);
    });

    it('resumes a compaction the process stopped in the middle of: the summary is asked for again', async () => {
      const session = await open();
      let turn = 0;
      let stopped = false;
      while (!stopped && turn < 40) {
        const driven = await drive(
          session,
          turnInput(turn++),
          (action) => action.type === 'SendCompactionRequest',
        );
        stopped = driven.actions.at(-1)?.type === 'SendCompactionRequest';
      }
      expect(stopped).toBe(true);
      // The summary call had started when the process stopped.
      await session.started({ effect: 'llm' });
      const before = session.core.context.messages;

      const reopened = await open();
      expect(reopened.core.stateValue).toEqual({ CallingLlm: 'Compacting' });
      expect(reopened.core.context.messages).toEqual(before);
      const resumed = await drive(reopened, reopened.resume!);
      expect(resumed.actions.map((action) => action.type).slice(0, 3)).toEqual([
        'SendCompactionRequest',
        'UsageReported',
        'Compacted',
      ]);
      expect(reopened.core.state).toBe('WaitingForUserInput');
      const active = reopened.core.context.messages;
      expect(textOf(active[0])).toContain(SUMMARY_HEADING);
      expect(findTranscriptViolations(active)).toEqual([]);
      expect((await open()).core.context.messages).toEqual(active);
    });
  });
}
