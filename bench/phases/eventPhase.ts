/**
 * Structural events, one at a time, on many agents (a host process holds many, so each event
 * meets cold caches, as it would): a sample builds a set of agents at the same point of the
 * scripted turn and times one event on each of them, step by step:
 *
 * - `LlmTextDelta`, a single delta (pure mode and the bare actor take it as one event; createAgent
 *   through its model call, one delta in one tick);
 * - `ToolCompleted` while the other call is still running (no message appended);
 * - `ToolCompleted` for the last call: appends the tool results, starts the next model call;
 * - `LlmCompleted` with text only: appends the answer, back to idle.
 *
 * The bare actor takes every event through `actor.send`; createAgent takes each from the child
 * actor that produces it (`sendBack`), as in production; AgentCore through `handleEvent`.
 */
import {
  HISTORY_SIZES,
  ONE_DELTA,
  priorMessages,
  type TurnScript,
  turnScript,
} from '../fixtures/conversation.js';
import { each, measureInterleaved, type Prepare, subjectFamily } from '../measure.js';
import { type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import { handReducerSubject } from '../subjects/handReducer.js';
import type { LoopSubject, SubjectFactory } from '../subjects/loopSubject.js';
import { naiveXstateSubject } from '../subjects/naiveXstate.js';
import { agentCoreSubject, bareActorSubject, createAgentSubject } from '../subjects/ourAgent.js';
import type { Message } from '../../src/index.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

// More rounds than most phases: the flatness of single events is the second-noisiest target.
const settings = phaseSettings({ rounds: 13 });
const script: TurnScript = turnScript();

export const EVENT_STEPS = [
  ['delta', 'LlmTextDelta'],
  ['toolPending', 'ToolCompleted (1 of 2)'],
  ['toolLast', 'ToolCompleted (last, appends)'],
  ['llmText', 'LlmCompleted (text, appends)'],
] as const;

function steps(make: SubjectFactory, prior: Message[], agents: number, label: string): Prepare {
  return () => {
    const subjects: LoopSubject[] = [];
    for (let index = 0; index < agents; index++) {
      const subject = make(prior);
      subject.deliver({ type: 'UserInput', message: script.user });
      subjects.push(subject);
    }
    const [first, second] = script.toolResults;
    return [
      each('delta', subjects, (s) => s.deliver(ONE_DELTA)),
      each(
        'toResponse',
        subjects,
        (s) => s.deliver({ type: 'LlmCompleted', response: script.firstResponse }),
        false,
      ),
      each('toolPending', subjects, (s) => s.deliver(first!)),
      each('toolLast', subjects, (s) => s.deliver(second!)),
      each('llmText', subjects, (s) =>
        s.deliver({ type: 'LlmCompleted', response: script.secondResponse }),
      ),
      each(
        'check',
        subjects,
        (s) => {
          if (s.state !== 'WaitingForUserInput' || s.messageCount !== prior.length + 4) {
            throw new Error(
              `${label}: expected idle with ${prior.length + 4} messages, got ${s.state}/${s.messageCount}`,
            );
          }
        },
        false,
      ),
    ];
  };
}

const subjects: Array<[string, string, SubjectFactory, number]> = [
  // Enough agents that every timed block takes milliseconds: shorter ones read noisier.
  ['hand', '(a) hand-written reducer', handReducerSubject, 2000],
  ['naive', '(b) naive XState, actor.send', naiveXstateSubject, 150],
  ['core', 'ours: AgentCore.handleEvent', agentCoreSubject, 150],
  ['bare', 'ours: bare agentMachine actor, actor.send', bareActorSubject, 150],
  ['agent', 'ours: createAgent, from its child actors', createAgentSubject, 150],
];
const quickScale = settings.quick ? 0.25 : 1;
const cases: Record<string, Prepare> = {};
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  for (const [id, , make, agents] of subjects) {
    cases[`${id}@${n}`] = steps(
      make,
      prior,
      Math.max(4, Math.round(agents * quickScale)),
      `${id}@${n}`,
    );
  }
}

// The part of an appending event that used to grow with history: appending one message by
// copying the array (the chart's first design) against the shared append-only log it uses now.
const APPENDS = 1024;
const NEW_MESSAGE: Message = { role: 'user', content: 'one more message' };
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  cases[`appendCopy@${n}`] = () => [
    {
      name: '',
      ops: APPENDS,
      run: () => {
        let messages = prior;
        for (let index = 0; index < APPENDS; index++) messages = messages.concat([NEW_MESSAGE]);
        if (messages.length !== n + APPENDS) throw new Error('append lost a message');
      },
    },
  ];
  cases[`appendLog@${n}`] = () => [
    {
      name: '',
      ops: APPENDS,
      run: () => {
        let transcript = prior;
        for (let index = 0; index < APPENDS; index++) transcript = [...transcript, NEW_MESSAGE];
        if (transcript.length !== n + APPENDS) throw new Error('append lost a message');
      },
    },
  ];
}

progress('events', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  family: subjectFamily,
  onRound: (round) => progress('events', `round ${round}/${settings.rounds}`),
});

const figures: Figure[] = [];
for (const [step, stepLabel] of EVENT_STEPS) {
  for (const n of HISTORY_SIZES) {
    for (const [id, label] of subjects) {
      figures.push(timingFigure(`event:${step}`, label, n, series.get(`${id}@${n}/${step}`)));
    }
    const at = (id: string) => series.get(`${id}@${n}/${step}`);
    figures.push(
      ratioFigure('handleEventRatio', stepLabel, n, at('core'), at('bare')),
      ratioFigure(
        'eventRatio',
        `${stepLabel}: createAgent ÷ hand reducer`,
        n,
        at('agent'),
        at('hand'),
      ),
      ratioFigure(
        'eventRatio',
        `${stepLabel}: naive XState ÷ createAgent`,
        n,
        at('naive'),
        at('agent'),
      ),
      ratioFigure(
        'eventRatio',
        `${stepLabel}: createAgent ÷ bare actor`,
        n,
        at('agent'),
        at('bare'),
      ),
    );
  }
  for (const [id, label] of subjects) {
    figures.push(
      ratioFigure(
        'eventFlat',
        `${stepLabel} — ${label}`,
        0,
        series.get(`${id}@10000/${step}`),
        series.get(`${id}@10/${step}`),
      ),
    );
  }
}
for (const n of HISTORY_SIZES) {
  figures.push(
    timingFigure(
      'append',
      'messages.concat([message]) (a copy per append: the first design)',
      n,
      series.get(`appendCopy@${n}`),
    ),
    timingFigure('append', 'the chart: a new array per message', n, series.get(`appendLog@${n}`)),
  );
}
finishPhase({
  phase: 'events',
  figures,
  extra: { agentsPerSample: Object.fromEntries(subjects.map(([id, , , agents]) => [id, agents])) },
});
