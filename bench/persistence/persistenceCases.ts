/**
 * The timed cases of the persistence phase, for the interleaved harness (bench/perTurn/measure.ts):
 * a durable turn by each subject on sessions of n prior messages, and resuming a session of n
 * messages from its file. Each sample works on a fresh copy of a template file; what is timed is
 * the turns (or the resume) only, and an untimed step after it checks the work was done.
 */
import {
  createAgent,
  createReadFileTool,
  createSqliteSessionStore,
  SessionCore,
} from '../../src/index.js';
import type { TurnScript } from '../perTurn/conversation.js';
import type { Block, Prepare } from '../perTurn/measure.js';
import { langGraphTurn, openLangGraphFile, threadMessages } from './langGraphSqlite.js';
import { runDurableTurn } from './sessionCoreTurn.js';
import { copyOf, sessionFolder, templatePath } from './sessionFiles.js';
import { DURABLE_CONFIG } from './storedHistory.js';

export type Durability = 'normal' | 'full';

/** The ids of the first `count` sessions (or threads) of a template. */
export function sessionIds(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `s${index}`);
}

function expectLength(label: string, got: number, expected: number): void {
  if (got !== expected) throw new Error(`${label}: expected ${expected} messages, got ${got}`);
}

/** `sessions` of our sessions at n messages, each doing one durable turn. */
export function ourTurns(
  durability: Durability,
  n: number,
  sessions: number,
  script: TurnScript,
): Prepare {
  return async () => {
    const file = copyOf(templatePath('ours', n));
    const store = createSqliteSessionStore({ path: file.path, durability });
    const opened: SessionCore[] = [];
    for (const id of sessionIds(sessions)) {
      opened.push(await SessionCore.open(store, id, { config: DURABLE_CONFIG }));
    }
    const turns: Block = {
      name: '',
      ops: opened.length,
      run: async () => {
        for (const session of opened) await runDurableTurn(session, script);
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        for (const session of opened) {
          expectLength(`ours-${durability}@${n}`, session.core.context.messages.length, n + 4);
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

/** Opens the store over a copy of the n-message file and the session in it, in pure mode. */
export function resumeSessionCore(n: number): Prepare {
  return () => {
    const file = copyOf(templatePath('resume', n));
    let store: ReturnType<typeof createSqliteSessionStore> | undefined;
    let session: SessionCore | undefined;
    const open: Block = {
      name: '',
      ops: 1,
      run: async () => {
        store = createSqliteSessionStore({ path: file.path });
        session = await SessionCore.open(store, 's0', { config: DURABLE_CONFIG, mustExist: true });
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        expectLength(`resume SessionCore@${n}`, session?.core.context.messages.length ?? 0, n);
        await store?.close();
        file.remove();
      },
    };
    return [open, check];
  };
}

/** Opens the store over a copy of the n-message file and an agent on the session in it. */
export function resumeCreateAgent(n: number): Prepare {
  return () => {
    const file = copyOf(templatePath('resume', n));
    let store: ReturnType<typeof createSqliteSessionStore> | undefined;
    let agent: ReturnType<typeof createAgent> | undefined;
    const open: Block = {
      name: '',
      ops: 1,
      run: async () => {
        store = createSqliteSessionStore({ path: file.path });
        agent = createAgent({
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
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        expectLength(`resume createAgent@${n}`, agent?.context.messages.length ?? 0, n);
        if (agent?.state !== 'WaitingForUserInput') {
          throw new Error(`resume createAgent@${n}: the agent is in ${agent?.state}`);
        }
        await agent.shutdown();
        await store?.close();
        file.remove();
      },
    };
    return [open, check];
  };
}
