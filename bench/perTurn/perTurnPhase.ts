/**
 * One full turn — UserInput → deltas (one tick) → LlmCompleted with 2 tool calls → 2
 * ToolCompleted → deltas (one tick) → LlmCompleted with text → idle — with instant model and
 * tools, so what is left is each subject's own overhead. Ours, the hand-written reducer and the
 * naive machine run it synchronously; LangGraph.js runs it as a graph invocation (model → tools →
 * model, three supersteps), sampled in the same interleaved rounds.
 */
import { HISTORY_SIZES, priorMessages, turnScript } from '../fixtures/conversation.js';
import { type Block, measureInterleaved, type Prepare, subjectFamily } from '../measure.js';
import { type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import { handReducerSubject } from '../subjects/handReducer.js';
import {
  checkpointedSession,
  compileLoop,
  type LangGraphSession,
  newMemorySaver,
  statelessSession,
} from '../subjects/langGraphLoop.js';
import {
  checkTurnDone,
  type LoopSubject,
  runTurn,
  type SubjectFactory,
} from '../subjects/loopSubject.js';
import { naiveXstateSubject } from '../subjects/naiveXstate.js';
import { agentCoreSubject, bareActorSubject, createAgentSubject } from '../subjects/ourAgent.js';
import type { Message } from '../../src/index.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

// More rounds than the other phases: a turn's ratio to LangGraph is the noisiest target.
const settings = phaseSettings({ rounds: 15 });
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

const syncSubjects: Array<[string, string, SubjectFactory, number]> = [
  ['hand', '(a) hand-written reducer', handReducerSubject, 200],
  ['naive', '(b) naive XState, actor.send per delta', naiveXstateSubject, 16],
  ['core', 'ours: AgentCore, handleEvent per delta', agentCoreSubject, 16],
  [
    'coreC',
    'ours: AgentCore + DeltaCoalescer',
    (prior) => agentCoreSubject(prior, { coalesce: true }),
    20,
  ],
  ['bare', 'ours: bare agentMachine actor', bareActorSubject, 20],
  ['agent', 'ours: createAgent', createAgentSubject, 20],
];
const graphRows: Array<[string, string]> = [
  ['lg', '(c) LangGraph.js, no checkpointer'],
  ['lgSaver', '(c) LangGraph.js + MemorySaver'],
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
      const count = n >= 10_000 ? 1 : scaled(2);
      for (let index = 0; index < count; index++) {
        sessions.push(await checkpointedSession(graph, script, prior, `thread-${index}`));
      }
      return sessions;
    },
    prior,
    `lgSaver@${n}`,
  );
}

progress('turn', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  family: subjectFamily,
  onRound: (round) => progress('turn', `round ${round}/${settings.rounds}`),
});

const figures: Figure[] = [];
const ours: Array<[string, string]> = [
  ['agent', 'createAgent'],
  ['bare', 'bare actor'],
  ['core', 'AgentCore'],
  ['coreC', 'AgentCore + coalescer'],
];
for (const n of HISTORY_SIZES) {
  for (const [id, label] of [...syncSubjects, ...graphRows]) {
    figures.push(timingFigure('turn', label, n, series.get(`${id}@${n}`)));
  }
  const at = (id: string) => series.get(`${id}@${n}`);
  for (const [id, label] of ours) {
    figures.push(
      ratioFigure('turnRatio', `LangGraph.js ÷ ${label}`, n, at('lg'), at(id)),
      ratioFigure('turnRatio', `LangGraph.js + MemorySaver ÷ ${label}`, n, at('lgSaver'), at(id)),
    );
  }
  figures.push(
    ratioFigure('turnRatio', 'createAgent ÷ hand-written reducer', n, at('agent'), at('hand')),
    ratioFigure('turnRatio', 'naive XState ÷ createAgent', n, at('naive'), at('agent')),
  );
}
// LangGraph's unit of work is a superstep (this turn has three: model, tools, model): its cost
// per step, beside the chart's cost per event.
for (const n of HISTORY_SIZES) {
  for (const [id, label] of graphRows) {
    const turns = series.get(`${id}@${n}`);
    if (turns === undefined) continue;
    const perStep = {
      cpu: turns.cpu.map((value) => value / 3),
      wall: turns.wall.map((value) => value / 3),
    };
    figures.push(timingFigure('lgStep', `${label}, per superstep (turn ÷ 3)`, n, perStep));
  }
}
for (const [id, label] of [...syncSubjects, ...graphRows]) {
  figures.push(
    ratioFigure('turnFlat', label, 0, series.get(`${id}@10000`), series.get(`${id}@10`)),
  );
}
finishPhase({
  phase: 'turn',
  figures,
  extra: {
    agentsPerSample: Object.fromEntries(
      syncSubjects.map(([id, , , agents]) => [id, scaled(agents)]),
    ),
    deltasPerTurn: script.firstDeltas.length + script.secondDeltas.length,
  },
});
