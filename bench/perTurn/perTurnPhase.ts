/**
 * The secondary table: one full turn — UserInput → deltas (one tick) → LlmCompleted with 2 tool
 * calls → 2 ToolCompleted → deltas (one tick) → LlmCompleted with text → idle — with instant model
 * and tools, so what is left is each subject's own overhead. The hand-written reducer, the naive
 * machine and pure mode (`AgentCore`) run it synchronously; LangGraph.js runs it as a graph
 * invocation (model → tools → model), sampled in the same interleaved rounds. Each subject is
 * sampled in a process of its own (see measure.ts).
 */
import { agentCoreSubject } from './agentCoreLoop.js';
import { HISTORY_SIZES, priorMessages, turnScript } from './conversation.js';
import { handReducerSubject } from './handReducer.js';
import {
  checkpointedSession,
  compileLoop,
  type LangGraphSession,
  newMemorySaver,
  statelessSession,
} from './langGraphLoop.js';
import { checkTurnDone, type LoopSubject, runTurn, type SubjectFactory } from './loopSubject.js';
import { type Block, measureInterleaved, type Prepare, subjectFamily } from './measure.js';
import { naiveXstateSubject } from './naiveMachineLoop.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';
import type { Message } from '../../src/index.js';
import { type Figure, ratioFigure, timingFigure } from '../report/figures.js';

const settings = phaseSettings({ rounds: 5 });
const script = turnScript();
const scaled = (count: number) => Math.max(1, Math.round(count * (settings.quick ? 0.25 : 1)));

function syncTurns(make: SubjectFactory, prior: Message[], agents: number, label: string): Prepare {
  return () => {
    const subjects: LoopSubject[] = [];
    for (let index = 0; index < agents; index++) subjects.push(make(prior));
    return [
      {
        name: '',
        ops: subjects.length,
        run: () => {
          for (const subject of subjects) runTurn(subject, script);
        },
      },
      {
        name: 'check',
        ops: 1,
        timed: false,
        run: () => {
          for (const subject of subjects) checkTurnDone(subject, prior.length, label);
        },
      },
    ];
  };
}

function graphTurns(
  sessions: () => Promise<LangGraphSession[]>,
  prior: Message[],
  label: string,
): Prepare {
  return async () => {
    const list = await sessions();
    const turn: Block = {
      name: '',
      ops: list.length,
      run: async () => {
        for (const session of list) await session.runTurn();
      },
    };
    const check: Block = {
      name: 'check',
      ops: 1,
      timed: false,
      run: async () => {
        for (const session of list) {
          const count = await session.countMessages();
          if (count !== prior.length + 4 || session.textSeen === 0) {
            throw new Error(`${label}: expected ${prior.length + 4} messages, got ${count}`);
          }
        }
      },
    };
    return [turn, check];
  };
}

/** Id, row label, factory and agents per sample (enough for each sample to take milliseconds). */
const syncSubjects: Array<[string, string, SubjectFactory, number]> = [
  ['hand', 'hand-written reducer', handReducerSubject, 200],
  ['naive', 'naive XState, actor.send per delta', naiveXstateSubject, 16],
  ['core', 'ours: AgentCore, handleEvent per delta', agentCoreSubject, 16],
];
const graphRows: Array<[string, string]> = [
  ['lg', 'LangGraph.js, no checkpointer'],
  ['lgSaver', 'LangGraph.js + MemorySaver'],
];

const stateless = compileLoop(script);
const cases: Record<string, Prepare> = {};
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  for (const [id, , make, agents] of syncSubjects) {
    cases[`${id}@${n}`] = syncTurns(make, prior, scaled(agents), `${id}@${n}`);
  }
  cases[`lg@${n}`] = graphTurns(
    () =>
      Promise.resolve(
        Array.from({ length: scaled(2) }, () => statelessSession(stateless, script, prior)),
      ),
    prior,
    `lg@${n}`,
  );
  cases[`lgSaver@${n}`] = graphTurns(
    async () => {
      // A fresh saver per sample: its storage grows with every checkpoint of every thread.
      const graph = compileLoop(script, newMemorySaver());
      const sessions: LangGraphSession[] = [];
      for (let index = 0; index < scaled(2); index++) {
        sessions.push(await checkpointedSession(graph, script, prior, `thread-${index}`));
      }
      return sessions;
    },
    prior,
    `lgSaver@${n}`,
  );
}

progress('per-turn', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  family: subjectFamily,
  onRound: (round) => progress('per-turn', `round ${round}/${settings.rounds}`),
});

const figures: Figure[] = [];
for (const n of HISTORY_SIZES) {
  for (const [id, label] of [...syncSubjects, ...graphRows]) {
    figures.push(timingFigure('turn', label, n, series.get(`${id}@${n}`)));
  }
  const at = (id: string) => series.get(`${id}@${n}`);
  figures.push(
    ratioFigure('turnRatio', 'AgentCore ÷ hand-written reducer', n, at('core'), at('hand')),
    ratioFigure('turnRatio', 'naive XState ÷ AgentCore', n, at('naive'), at('core')),
    ratioFigure('turnRatio', 'LangGraph.js ÷ AgentCore', n, at('lg'), at('core')),
    ratioFigure(
      'turnRatio',
      'LangGraph.js + MemorySaver ÷ AgentCore',
      n,
      at('lgSaver'),
      at('core'),
    ),
  );
}
finishPhase({
  phase: 'perTurn',
  figures,
  extra: {
    agentsPerSample: Object.fromEntries(
      syncSubjects.map(([id, , , agents]) => [id, scaled(agents)]),
    ),
    deltasPerTurn: script.firstDeltas.length + script.secondDeltas.length,
  },
});
