/**
 * The timed cases of the persistence phase, for the interleaved harness (bench/perTurn/measure.ts):
 * a durable turn by each subject on sessions of n prior messages, and resuming a session of n
 * messages from its file; both also on a session of n messages compacted to its active window.
 * Each sample works on a fresh copy of a template file; what is timed is the turns (or the
 * resume) only, and an untimed step after it checks the work was done.
 */
import {
  createAgent,
  createReadFileTool,
  createSqliteSessionStore,
  SessionCore,
  type SessionStore,
} from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';
import type { Block, Prepare } from '../perTurn/measure.js';
import type { DurableSubject } from './durablePackage.js';
import type { Durability } from './persistenceFigures.js';
import { langGraphTurn, openLangGraphFile, threadMessages } from './langGraphSqlite.js';
import { runDurableTurn } from './sessionCoreTurn.js';
import { compactedLength, copyOf, sessionFolder, templatePath } from './sessionFiles.js';
import { DURABLE_CONFIG } from './storedHistory.js';

/** The ids of the first `count` sessions (or threads) of a template. */
export function sessionIds(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `s${index}`);
}

function expectLength(label: string, got: number, expected: number): void {
  if (got !== expected) throw new Error(`${label}: expected ${expected} messages, got ${got}`);
}

/**
 * A history to work on: n stored messages, compacted or not. The transcript of a compacted one
 * holds only the summary and the latest messages; its log holds all n.
 */
export interface History {
  n: number;
  compacted: boolean;
}

/** How a history names its cases: `@n`, or `@n+compacted`. */
export function historyTag({ n, compacted }: History): string {
  return `${n}${compacted ? '+compacted' : ''}`;
}

/** The messages a session of `history` holds in its transcript as it opens. */
function transcriptLength(history: History): number {
  return history.compacted ? compactedLength(history.n) : history.n;
}

/**
 * `sessions` of `subject`'s sessions on `history`, each doing the durable turns of `scripts` one
 * after the other (each script's tool call has an id of its own).
 */
export function ourTurns(
  subject: DurableSubject,
  durability: Durability,
  history: History,
  sessions: number,
  scripts: readonly TurnScript[],
): Prepare {
  const n = history.n;
  const kind = history.compacted ? 'oursCompacted' : subject.kind;
  return async () => {
    const build = await subject.load();
    const file = copyOf(templatePath(kind, n));
    const opening = transcriptLength(history);
    const store = build.createSqliteSessionStore({ path: file.path, durability });
    const opened: SessionCore[] = [];
    for (const id of sessionIds(sessions)) {
      opened.push(await build.SessionCore.open(store, id, { config: DURABLE_CONFIG }));
    }
    const turns: Block = {
      name: '',
      ops: opened.length * scripts.length,
      run: async () => {
        for (const script of scripts) {
          for (const session of opened) await runDurableTurn(session, script);
        }
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        for (const session of opened) {
          const expected = opening + 4 * scripts.length;
          const label = `${subject.kind}-${durability}@${historyTag(history)}`;
          expectLength(label, session.core.context.messages.length, expected);
        }
        await store.close();
        file.remove();
      },
    };
    return [turns, check];
  };
}

/** `threads` LangGraph.js threads at n messages in a SqliteSaver file, each doing one turn. */
export function langGraphTurns(n: number, threads: number, script: TurnScript): Prepare {
  return () => {
    const file = copyOf(templatePath('langGraph', n));
    const graph = openLangGraphFile(file.path, script);
    const ids = sessionIds(threads);
    const turns: Block = {
      name: '',
      ops: ids.length,
      run: async () => {
        for (const id of ids) await langGraphTurn(graph, id, script);
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        for (const id of ids) {
          expectLength(`langGraph@${n}`, (await threadMessages(graph, id)).length, n + 4);
        }
        graph.close();
        file.remove();
      },
    };
    return [turns, check];
  };
}

/** A session as a resume left it: its transcript's length, its state, and how to let it go. */
interface Resumed {
  messages: number;
  state: string;
  release(): Promise<void>;
}

/**
 * Opens the store over a copy of the file of `history` and `resume`s the session in it (timed);
 * then checks it came back whole and at rest, and removes the copy (not timed).
 */
function resumeCase(
  label: string,
  history: History,
  resume: (store: SessionStore) => Promise<Resumed>,
): Prepare {
  const tag = `resume ${label}@${historyTag(history)}`;
  return () => {
    const file = copyOf(templatePath(history.compacted ? 'resumeCompacted' : 'resume', history.n));
    const expected = transcriptLength(history);
    let store: SessionStore | undefined;
    let resumed: Resumed | undefined;
    const open: Block = {
      name: '',
      ops: 1,
      run: async () => {
        store = createSqliteSessionStore({ path: file.path });
        resumed = await resume(store);
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        expectLength(tag, resumed?.messages ?? 0, expected);
        if (resumed?.state !== 'WaitingForUserInput') {
          throw new Error(`${tag}: the session is in ${resumed?.state}`);
        }
        await resumed.release();
        await store?.close();
        file.remove();
      },
    };
    return [open, check];
  };
}

/** Resuming in pure mode: `SessionCore.open`. */
export function resumeSessionCore(history: History): Prepare {
  return resumeCase('SessionCore', history, async (store) => {
    const session = await SessionCore.open(store, 's0', {
      config: DURABLE_CONFIG,
      mustExist: true,
    });
    return {
      messages: session.core.context.messages.length,
      state: session.core.state,
      release: () => Promise.resolve(),
    };
  });
}

/** Resuming in actor mode: `createAgent` with the store and the session's id, to `ready`. */
export function resumeCreateAgent(history: History): Prepare {
  return resumeCase('createAgent', history, async (store) => {
    const agent = createAgent({
      store,
      sessionId: 's0',
      // The agent never runs a tool: any folder will do.
      workspace: sessionFolder(),
      tools: [createReadFileTool()],
      autoCommit: false,
      // Never called: the session is at rest, and the agent is shut down unused.
      anthropic: { apiKey: 'unused', baseURL: 'http://127.0.0.1:9' },
    });
    await agent.ready;
    return {
      messages: agent.context.messages.length,
      state: agent.state,
      release: () => agent.shutdown(),
    };
  });
}
