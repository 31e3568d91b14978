/**
 * One streaming text delta, end to end: from where the model call receives it to the listener
 * that shows it. Ours in actor mode goes through the real `DeltaCoalescer` (one flush per I/O
 * tick): with 64 deltas per tick (a fast stream; see streamBatchPhase for what one delivers) and
 * with 1 (the worst case: a slow stream, one delta per read). The baselines handle every delta
 * on its own, so their figure is the same for both. A last group uses the real `setImmediate`
 * scheduler, event loop included, to show what the synchronous figures leave out.
 */
import { setImmediate as nextTick } from 'node:timers/promises';
import { HISTORY_SIZES, ONE_DELTA, priorMessages } from '../fixtures/conversation.js';
import {
  type Block,
  measureInterleaved,
  type Prepare,
  type Series,
  subjectFamily,
} from '../measure.js';
import { type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import { ActorHandles, benchActors } from '../subjects/benchActors.js';
import { handReducerSubject } from '../subjects/handReducer.js';
import type { LoopSubject } from '../subjects/loopSubject.js';
import { compileStreamOnly } from '../subjects/langGraphLoop.js';
import { naiveXstateSubject } from '../subjects/naiveXstate.js';
import { agentCoreSubject, bareActorSubject, createAgentSubject } from '../subjects/ourAgent.js';
import { createAgent, type Message } from '../../src/index.js';
import { SHARED_TOOLS } from '../fixtures/tools.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

export const BATCH = 64;
const settings = phaseSettings();
const scale = settings.quick ? 0.2 : 1;
const count = (value: number) => Math.max(1, Math.round(value * scale));

/**
 * Deltas per response. A sample streams whole responses of this length into fresh subjects, as a
 * real stream would (about 4 KB of text), rather than one endless response whose ever longer
 * text would be a different workload.
 */
const RESPONSE_DELTAS = 1024;

function streaming(
  make: (prior: Message[]) => LoopSubject,
  prior: Message[],
  count: number,
): LoopSubject[] {
  const subjects: LoopSubject[] = [];
  for (let index = 0; index < count; index++) {
    const subject = make(prior);
    subject.deliver({ type: 'UserInput', message: { role: 'user', content: 'Explain the diff.' } });
    subjects.push(subject);
  }
  return subjects;
}

/** Per-delta subjects: every delta is one event. */
function perDelta(
  make: (prior: Message[]) => LoopSubject,
  prior: Message[],
  responses: number,
): Prepare {
  return () => {
    const subjects = streaming(make, prior, count(responses));
    return [
      {
        name: '',
        ops: subjects.length * RESPONSE_DELTAS,
        run: () => {
          for (const subject of subjects) {
            for (let index = 0; index < RESPONSE_DELTAS; index++) subject.deliver(ONE_DELTA);
          }
        },
      },
    ];
  };
}

/** Batching subjects: each response arrives `batch` deltas per tick, flushed once per tick. */
function ticks(subjects: LoopSubject[], name: string, batch: number): Block {
  const deltas = Array.from({ length: batch }, () => ONE_DELTA);
  const tickCount = RESPONSE_DELTAS / batch;
  return {
    name,
    ops: subjects.length * RESPONSE_DELTAS,
    run: () => {
      for (const subject of subjects) {
        for (let tick = 0; tick < tickCount; tick++) subject.deliverTick(deltas);
        subject.endStream?.();
      }
      if (subjects[0]!.textSeen === 0) throw new Error(`${name}: the listener saw no text`);
    },
  };
}

/**
 * One batching variant per case: every timed block is then the first after its own setup, as
 * each baseline's is (the first block after setup and a full GC runs measurably slower, so two
 * blocks sharing one setup would not be measured alike).
 */
function batched(
  make: (prior: Message[]) => LoopSubject,
  prior: Message[],
  variant: 'K64' | 'K1',
): Prepare {
  return () => [
    variant === 'K64'
      ? ticks(streaming(make, prior, count(16)), 'K64', BATCH)
      : ticks(streaming(make, prior, count(8)), 'K1', 1),
  ];
}

/** createAgent with the coalescer's own default scheduler (`setImmediate`), awaited per tick. */
function realScheduler(prior: Message[], variant: 'K64' | 'K1'): Prepare {
  return () => {
    const start = () => {
      const handles = new ActorHandles();
      const agent = createAgent({
        tools: SHARED_TOOLS,
        autoCommit: false,
        messages: prior,
        actors: benchActors(handles),
      });
      agent.send('Explain the diff.');
      return { handles, agent };
    };
    let seen = 0;
    const asyncTicks = (name: string, batch: number, responses: number): Block => {
      const agents = Array.from({ length: responses }, start);
      for (const { agent } of agents) {
        agent.on('text', ({ text }) => {
          seen += text.length;
        });
      }
      return {
        name,
        ops: responses * RESPONSE_DELTAS,
        run: async () => {
          for (const { handles } of agents) {
            for (let tick = 0; tick < RESPONSE_DELTAS / batch; tick++) {
              for (let index = 0; index < batch; index++) handles.llm?.push(ONE_DELTA);
              await nextTick(); // the coalescer's flush was queued first, so it has run by now
            }
          }
          if (seen === 0) throw new Error('the listener saw nothing');
        },
      };
    };
    return [variant === 'K64' ? asyncTicks('K64', BATCH, count(2)) : asyncTicks('K1', 1, 1)];
  };
}

/**
 * LangGraph.js: a one-node graph whose model writes 1,024 deltas through `config.writer`, read
 * from `graph.stream(…, { streamMode: 'custom' })`, against the same graph writing none; the
 * difference per delta is what streaming a delta costs there.
 */
const streamWith = compileStreamOnly(RESPONSE_DELTAS);
const streamWithout = compileStreamOnly(0);
function langGraph(prior: Message[]): Prepare {
  const run = (graph: typeof streamWith, name: string): Block => ({
    name,
    ops: 1,
    run: async () => {
      let chunks = 0;
      const stream = await graph.stream({ messages: prior }, { streamMode: 'custom' });
      for await (const chunk of stream) chunks += chunk === undefined ? 0 : 1;
      if (name === 'with' && chunks !== RESPONSE_DELTAS)
        throw new Error(`LangGraph streamed ${chunks}`);
    },
  });
  return () => [run(streamWith, 'with'), run(streamWithout, 'without')];
}

const cases: Record<string, Prepare> = {};
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  cases[`hand@${n}`] = perDelta(handReducerSubject, prior, 16);
  cases[`naive@${n}`] = perDelta(naiveXstateSubject, prior, 1);
  cases[`core@${n}`] = perDelta(agentCoreSubject, prior, 1);
  for (const variant of ['K64', 'K1'] as const) {
    cases[`agent${variant}@${n}`] = batched(createAgentSubject, prior, variant);
    cases[`bare${variant}@${n}`] = batched(bareActorSubject, prior, variant);
  }
  // What an `inspect` observer costs by itself (createAgent installs one only when inspected).
  cases[`inspectK1@${n}`] = batched(
    (messages) => bareActorSubject(messages, { inspect: true }),
    prior,
    'K1',
  );
  cases[`realK64@${n}`] = realScheduler(prior, 'K64');
  cases[`realK1@${n}`] = realScheduler(prior, 'K1');
  cases[`lg@${n}`] = langGraph(prior);
}
// The event loop alone: one awaited setImmediate per tick, nothing else.
cases['tick@0'] = () => [
  {
    name: '',
    ops: RESPONSE_DELTAS,
    run: async () => {
      for (let tick = 0; tick < RESPONSE_DELTAS; tick++) await nextTick();
    },
  },
];

progress('delta', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  family: subjectFamily,
  onRound: (round) => progress('delta', `round ${round}/${settings.rounds}`),
});
const get = (key: string) => series.get(key);

const rows: Array<[string, string]> = [
  ['(a) hand-written reducer', 'hand'],
  ['(b) naive XState, actor.send per delta', 'naive'],
  ['ours: createAgent, 64 deltas/tick', 'agent/K64'],
  ['ours: createAgent, 1 delta/tick (worst)', 'agent/K1'],
  ['ours: bare agentMachine actor, 64/tick', 'bare/K64'],
  ['ours: bare agentMachine actor, 1/tick', 'bare/K1'],
  ['ours: bare actor + no-op inspect observer, 1/tick', 'inspect/K1'],
  ['ours: AgentCore.handleEvent per delta', 'core'],
  ['ours: createAgent + real setImmediate, 64/tick', 'real/K64'],
  ['ours: createAgent + real setImmediate, 1/tick', 'real/K1'],
  ['(c) LangGraph.js, config.writer per delta', 'lgDelta'],
];
/** Per-round (with − without) ÷ deltas: LangGraph's cost per streamed delta. */
function langGraphPerDelta(n: number): Series {
  const withDeltas = get(`lg@${n}/with`);
  const without = get(`lg@${n}/without`);
  if (withDeltas === undefined || without === undefined)
    throw new Error('LangGraph series missing');
  const perDelta = (a: number[], b: number[]) =>
    a.map((value, index) => (value - b[index]!) / RESPONSE_DELTAS);
  return {
    cpu: perDelta(withDeltas.cpu, without.cpu),
    wall: perDelta(withDeltas.wall, without.wall),
  };
}
for (const n of HISTORY_SIZES) series.set(`lgDelta@${n}`, langGraphPerDelta(n));

const figures: Figure[] = [];
for (const n of HISTORY_SIZES) {
  const at = (key: string) => seriesAt(key, n);
  for (const [row, key] of rows) figures.push(timingFigure('delta', row, n, at(key)));
  figures.push(
    ratioFigure(
      'deltaRatio',
      'createAgent 64/tick ÷ hand reducer (target ≤ 5)',
      n,
      at('agent/K64'),
      at('hand'),
    ),
    ratioFigure('deltaRatio', 'createAgent 1/tick ÷ hand reducer', n, at('agent/K1'), at('hand')),
    ratioFigure(
      'deltaRatio',
      'naive XState ÷ createAgent 64/tick (target ≥ 40)',
      n,
      at('naive'),
      at('agent/K64'),
    ),
    ratioFigure('deltaRatio', 'naive XState ÷ bare actor 64/tick', n, at('naive'), at('bare/K64')),
    ratioFigure('deltaRatio', 'createAgent ÷ bare actor, 1/tick', n, at('agent/K1'), at('bare/K1')),
    ratioFigure(
      'deltaRatio',
      'bare actor + no-op inspect ÷ bare actor, 1/tick',
      n,
      at('inspect/K1'),
      at('bare/K1'),
    ),
    ratioFigure('deltaRatio', 'naive XState ÷ createAgent 1/tick', n, at('naive'), at('agent/K1')),
    ratioFigure(
      'deltaRatio',
      'LangGraph.js ÷ createAgent 64/tick',
      n,
      at('lgDelta'),
      at('agent/K64'),
    ),
    ratioFigure(
      'deltaRatio',
      'LangGraph.js ÷ createAgent 1/tick',
      n,
      at('lgDelta'),
      at('agent/K1'),
    ),
  );
}
/** The series of a row's key at one history size (a batching variant is its own case). */
function seriesAt(key: string, n: number): Series | undefined {
  const [subject, block] = key.split('/');
  return get(block === undefined ? `${subject}@${n}` : `${subject}${block}@${n}/${block}`);
}
for (const [row, key] of rows) {
  figures.push(ratioFigure('deltaFlat', row, 0, seriesAt(key, 10000), seriesAt(key, 10)));
}
figures.push(
  timingFigure('deltaLoop', 'event loop alone: one awaited setImmediate', 0, get('tick@0')),
);
finishPhase({ phase: 'delta', figures, extra: { batch: BATCH, rounds: settings.rounds } });
