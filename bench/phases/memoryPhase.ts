/**
 * Memory per idle agent: N agents of a kind, each after one full turn (so idle as a real agent
 * is), measured as heap growth over a full GC, minus the conversation's own size.
 *
 * The conversation's own size is measured, not estimated: after measuring the agents, the phase
 * keeps only each agent's transcript array (its own array and the turn's new messages; the prior
 * messages are one shared set, counted in the baseline), drops the agents, and measures again.
 * For serialised forms (JSON snapshots, LangGraph's MemorySaver) the conversation is one JSON copy
 * of the transcript, in bytes.
 */
import type { Actor } from 'xstate';
import type { Agent, AgentCore, AgentMachine, AgentSnapshot, Message } from '../../src/index.js';
import { HISTORY_SIZES, priorMessages, turnScript } from '../fixtures/conversation.js';
import { settledHeap } from '../memory/heap.js';
import { figure, type Figure } from '../report/figures.js';
import { type HandState, handReducerSubject } from '../subjects/handReducer.js';
import { checkpointedSession, compileLoop, newMemorySaver } from '../subjects/langGraphLoop.js';
import { checkTurnDone, type LoopSubject, runTurn } from '../subjects/loopSubject.js';
import { type naiveMachine, naiveXstateSubject } from '../subjects/naiveXstate.js';
import { agentCoreSubject, bareActorSubject, createAgentSubject } from '../subjects/ourAgent.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

const settings = phaseSettings();
const script = turnScript();

interface Measured {
  total: number;
  conversation: number;
  overhead: number;
  agents: number;
}

/** A kind of idle session: how to make one (after a turn) and what of it is the conversation. */
interface Kind<T> {
  id: string;
  label: string;
  /** Agents per measurement, by history size (heavier forms use fewer). */
  agents: (n: number) => number;
  make: (prior: Message[]) => T | Promise<T>;
  /** Live transcript (objects) or, for serialised forms, its JSON size in bytes. */
  conversation: (session: T) => readonly Message[] | number;
}

/**
 * Makes and drops sessions first: code compiled and caches filled on first use are not per
 * agent. Five were not enough: the first thousand hibernated sessions then read 1.4 KB each
 * beyond their transcript, the next thousand 0.7 KB.
 */
async function warmUp<T>(kind: Kind<T>, prior: Message[], count: number): Promise<void> {
  for (let index = 0; index < count; index++) await kind.make(prior.slice());
}

/** Makes the sessions into a preallocated array (so the array itself is not in the difference). */
async function fill<T>(kind: Kind<T>, prior: Message[], into: T[]): Promise<void> {
  // Each session gets its own transcript array, as if loaded from storage (the message objects
  // are shared, and counted once, in the baseline).
  for (let index = 0; index < into.length; index++) into[index] = await kind.make(prior.slice());
}

async function measureKind<T>(kind: Kind<T>, n: number, prior: Message[]): Promise<Measured> {
  const count = Math.max(2, Math.round(kind.agents(n) * (settings.quick ? 0.1 : 1)));
  // Helpers, not inline awaits: an awaited value can stay referenced from the async function's
  // frame until it is overwritten, which would count a warm-up session in the baseline.
  await warmUp(kind, prior, Math.min(count, 100));
  const sessions = new Array<T>(count);
  const kept = new Array<readonly Message[] | number>(count);
  const before = settledHeap();
  await fill(kind, prior, sessions);
  const withAgents = settledHeap();
  for (let index = 0; index < count; index++) kept[index] = kind.conversation(sessions[index]!);
  sessions.length = 0; // drop the agents, keep their transcripts
  const withTranscripts = settledHeap();
  const total = (withAgents - before) / count;
  let serialisedBytes = 0;
  let serialised = true;
  for (const value of kept) {
    if (typeof value === 'number') serialisedBytes += value;
    else serialised = false;
  }
  const conversation = serialised ? serialisedBytes / count : (withTranscripts - before) / count;
  return { total, conversation, overhead: total - conversation, agents: count };
}

function afterTurn<T extends LoopSubject>(subject: T, prior: Message[], label: string): T {
  runTurn(subject, script);
  checkTurnDone(subject, prior.length, label);
  return subject;
}

const many = (n: number) => (n >= 10_000 ? 500 : 1000);
const kinds: Array<Kind<unknown>> = [
  {
    id: 'agent',
    label: 'ours: createAgent (idle actor)',
    agents: many,
    make: (prior) => afterTurn(createAgentSubject(prior), prior, 'createAgent').agent,
    conversation: (agent) => (agent as Agent).context.messages,
  },
  {
    id: 'bare',
    label: 'ours: bare agentMachine actor',
    agents: many,
    make: (prior) => afterTurn(bareActorSubject(prior), prior, 'bare').actor,
    conversation: (actor) => (actor as Actor<AgentMachine>).getSnapshot().context.messages,
  },
  {
    id: 'core',
    label: 'ours: AgentCore',
    agents: many,
    make: (prior) => afterTurn(agentCoreSubject(prior, { coalesce: true }), prior, 'core').core,
    conversation: (core) => (core as AgentCore).context.messages,
  },
  {
    id: 'snapshot',
    label: 'ours: AgentCore snapshot() object (core dropped)',
    agents: many,
    make: (prior) =>
      afterTurn(agentCoreSubject(prior, { coalesce: true }), prior, 'snapshot').core.snapshot(),
    conversation: (snapshot) => (snapshot as AgentSnapshot).context.messages,
  },
  {
    id: 'json',
    label: 'ours: hibernated, JSON.stringify(snapshot())',
    agents: (n) => (n >= 10_000 ? 10 : n >= 1000 ? 100 : 1000),
    make: (prior) => {
      const core = afterTurn(agentCoreSubject(prior, { coalesce: true }), prior, 'json').core;
      return {
        json: JSON.stringify(core.snapshot()),
        transcript: JSON.stringify(core.context.messages).length,
      };
    },
    conversation: (stored) => (stored as { transcript: number }).transcript,
  },
  {
    id: 'hand',
    label: '(a) hand-written reducer state',
    agents: many,
    make: (prior) => afterTurn(handReducerSubject(prior), prior, 'hand').handState,
    conversation: (state) => (state as HandState).messages,
  },
  {
    id: 'naive',
    label: '(b) naive XState actor',
    agents: many,
    make: (prior) => afterTurn(naiveXstateSubject(prior), prior, 'naive').actor,
    conversation: (actor) => (actor as Actor<typeof naiveMachine>).getSnapshot().context.messages,
  },
  {
    id: 'lgSaver',
    label: '(c) LangGraph.js thread in MemorySaver',
    agents: (n) => (n >= 10_000 ? 3 : n >= 1000 ? 20 : 100),
    make: async (prior) => {
      // One saver and one compiled graph per thread: MemorySaver keeps every checkpoint of every
      // thread, so a thread's cost is what its saver holds.
      const graph = compileLoop(script, newMemorySaver());
      const session = await checkpointedSession(graph, script, prior, 'thread');
      await session.runTurn();
      const state = await graph.getState({ configurable: { thread_id: 'thread' } });
      const messages = (state.values as { messages: Message[] }).messages;
      if (messages.length !== prior.length + 4) throw new Error('LangGraph turn incomplete');
      return { graph, transcript: JSON.stringify(messages).length };
    },
    conversation: (stored) => (stored as { transcript: number }).transcript,
  },
];

const figures: Figure[] = [];
const details: Record<string, Measured> = {};
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  for (const kind of kinds) {
    const measured = await measureKind(kind, n, prior);
    details[`${kind.id}@${n}`] = measured;
    progress(
      'memory',
      `${kind.id}@${n}: ${Math.round(measured.overhead)} B + ${Math.round(measured.conversation)} B conversation (${measured.agents} agents)`,
    );
    figures.push(
      figure('memory', kind.label, n, 'bytes', [measured.overhead], `${measured.agents} agents`),
      figure('memoryTotal', kind.label, n, 'bytes', [measured.total]),
      figure('memoryConversation', kind.label, n, 'bytes', [measured.conversation]),
    );
  }
}
finishPhase({ phase: 'memory', figures, extra: { details } });
