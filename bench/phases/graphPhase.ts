/**
 * Generating the graph tests: `getShortestPaths` from 'xstate/graph' over the chart, with a small
 * event set and a compact state key (state name, tool-run statuses, queued or not, retries,
 * whether text has streamed), from a start with 10, 1,000 and 10,000 prior messages. The real
 * graph tests (test/graph) walk a richer model; this times an equivalent generation. The naive
 * machine is walked the same way; the hand-written reducer and LangGraph.js have no chart to
 * walk, so they have no figure here.
 */
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { type AgentEvent, agentMachine, type Message } from '../../src/index.js';
import { HISTORY_SIZES, priorMessages } from '../fixtures/conversation.js';
import { measureInterleaved, type Prepare, subjectFamily } from '../measure.js';
import { figure, type Figure, ratioFigure, timingFigure } from '../report/figures.js';
import { naiveMachine } from '../subjects/naiveXstate.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

const settings = phaseSettings();

const EVENTS: AgentEvent[] = [
  { type: 'UserInput', message: { role: 'user', content: 'Fix the test.' } },
  { type: 'LlmTextDelta', content: 'tok ' },
  {
    type: 'LlmCompleted',
    response: {
      message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      stopReason: 'end_turn',
    },
  },
  {
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 't2', name: 'edit_file', input: { path: 'a.ts' } },
        ],
      },
      stopReason: 'tool_use',
    },
  },
  { type: 'ToolCompleted', callId: 't1', outcome: { status: 'success', output: 'text' } },
  { type: 'ToolCompleted', callId: 't2', outcome: { status: 'success', output: 'edited' } },
  { type: 'LlmError', error: { kind: 'overloaded', message: 'Overloaded' } },
  { type: 'RetryTimeoutFired' },
  { type: 'PostToolsHookCompleted', actionTaken: true },
  { type: 'Interrupt' },
  { type: 'ShutdownRequested' },
];
// A runaway walk (a key that never repeats) stops here instead of filling the heap.
const LIMIT = 5000;

type OurSnapshot = SnapshotFrom<typeof agentMachine>;
type NaiveSnapshot = SnapshotFrom<typeof naiveMachine>;

const ourKey = (snapshot: OurSnapshot): string => {
  const { context } = snapshot;
  const runs = context.toolRuns.map((run) => run.status[0]).join('');
  const queued = Math.min(context.queue.length, 1);
  return `${snapshot.value}|${runs}|q${queued}|r${context.retries}|${context.streamingText === '' ? '' : 't'}`;
};
const naiveKey = (snapshot: NaiveSnapshot): string => {
  const { context } = snapshot;
  const done = context.calls.map((call) => (call.id in context.outcomes ? 'd' : 'r')).join('');
  const queued = Math.min(context.queue.length, 1);
  return `${String(snapshot.value)}|${done}|q${queued}|r${context.retries}|${context.streamingText === '' ? '' : 't'}`;
};

function ourPaths(messages: Message[]) {
  return getShortestPaths(agentMachine, {
    events: EVENTS,
    serializeState: ourKey,
    input: { config: {}, messages },
    limit: LIMIT,
  });
}

function naivePaths(messages: Message[]) {
  return getShortestPaths(naiveMachine, {
    events: EVENTS,
    serializeState: naiveKey,
    input: { messages },
    limit: LIMIT,
  });
}

function generation(generate: () => unknown[]): Prepare {
  return () => [
    {
      name: '',
      ops: 1,
      run: () => {
        if (generate().length === 0) throw new Error('no paths generated');
      },
    },
  ];
}

const cases: Record<string, Prepare> = {};
for (const n of HISTORY_SIZES) {
  const messages = priorMessages(n);
  cases[`ours@${n}`] = generation(() => ourPaths(messages));
  cases[`naive@${n}`] = generation(() => naivePaths(messages));
}

progress('graph', `${Object.keys(cases).length} cases × ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  family: subjectFamily,
  onRound: (round) => progress('graph', `round ${round}/${settings.rounds}`),
});
const figures: Figure[] = [];
// Counted here, untimed: the timed generations ran in each family's own process.
const pathCounts: Record<string, number> = {};
for (const n of HISTORY_SIZES) {
  pathCounts[`ours@${n}`] = ourPaths(priorMessages(n)).length;
  pathCounts[`naive@${n}`] = naivePaths(priorMessages(n)).length;
  figures.push(
    timingFigure('graph', 'ours: getShortestPaths(agentMachine)', n, series.get(`ours@${n}`)),
    timingFigure('graph', '(b) naive XState: getShortestPaths', n, series.get(`naive@${n}`)),
    figure('graphPaths', 'ours: paths (one per abstract state)', n, 'count', [
      pathCounts[`ours@${n}`] ?? 0,
    ]),
    figure('graphPaths', '(b) naive XState: paths', n, 'count', [pathCounts[`naive@${n}`] ?? 0]),
    ratioFigure(
      'graphRatio',
      'ours ÷ naive XState',
      n,
      series.get(`ours@${n}`),
      series.get(`naive@${n}`),
    ),
  );
}
figures.push(
  ratioFigure(
    'graphFlat',
    'ours: getShortestPaths(agentMachine)',
    0,
    series.get('ours@10000'),
    series.get('ours@10'),
  ),
);
finishPhase({
  phase: 'graph',
  figures,
  extra: { events: EVENTS.length, limit: LIMIT, paths: pathCounts },
});
