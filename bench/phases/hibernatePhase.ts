/**
 * Holding many idle sessions in one process: each idle agent is kept as a JSON snapshot (a
 * string) instead of a live object, and rebuilt with `AgentCore.fromSnapshot` on its next event.
 *
 * - 100,000 sessions of 10 prior messages each (each with its own text), every one left idle by a
 *   real turn through `handleEvent` (a question and an answer, to keep the build in budget), stored
 *   both as `JSON.stringify(core.snapshot())` and in the compact form; heap per session;
 *   then 1,000 random sessions woken up (parse + fromSnapshot + the next event) and put back.
 * - At 10, 1,000 and 10,000 messages: bytes per hibernated session, and the time to hibernate,
 *   parse, restore (fromSnapshot, which deep-copies the context) and take the first event.
 */
import { AgentCore, type AgentSnapshot, type Message } from '../../src/index.js';
import { HISTORY_SIZES, priorMessages, turnScript } from '../fixtures/conversation.js';
import { hibernate, hibernateCompact, rehydrate, SESSION_CONFIG } from '../fixtures/hibernation.js';
import { settledHeap } from '../memory/heap.js';
import { collectGarbage, each, measureInterleaved, type Prepare } from '../measure.js';
import { figure, type Figure, timingFigure } from '../report/figures.js';
import { agentCoreSubject } from '../subjects/ourAgent.js';
import { checkTurnDone, runTurn } from '../subjects/loopSubject.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

const settings = phaseSettings();
const script = turnScript();
const NEXT_INPUT: Message = { role: 'user', content: 'And now the other file, please.' };

/** A short turn (a question and a text answer): what most of 100,000 idle sessions last did. */
function quickIdleCore(prior: Message[]): AgentCore {
  const core = new AgentCore(SESSION_CONFIG, { messages: prior });
  core.handleEvent({ type: 'UserInput', message: script.user });
  core.handleEvent({ type: 'LlmCompleted', response: script.secondResponse });
  if (core.state !== 'WaitingForUserInput') throw new Error(`not idle: ${core.state}`);
  return core;
}

/** An idle core after one full scripted turn over `prior`. */
function idleCore(prior: Message[]): AgentCore {
  const subject = agentCoreSubject(prior, { coalesce: true });
  runTurn(subject, script);
  checkTurnDone(subject, prior.length, 'hibernation');
  return subject.core;
}

function jsonBytes(value: unknown): number {
  return JSON.stringify(value).length;
}

/**
 * What V8 holds for a flat string: a 16-byte header and one byte per character when every
 * character fits in Latin-1 (JSON of ASCII text does), two otherwise, rounded up to 8 bytes. This
 * is the exact size of a hibernated session; a heap difference measures the same thing plus
 * whatever else a thousand sessions' making left behind, within about 0.1% of a long transcript.
 */
function stringHeapBytes(text: string): number {
  // eslint-disable-next-line no-control-regex
  const perChar = /[^\u0000-\u00ff]/.test(text) ? 2 : 1;
  return Math.ceil((16 + perChar * text.length) / 8) * 8;
}

const figures: Figure[] = [];
const extra: Record<string, unknown> = {};

// ── 100,000 sessions ─────────────────────────────────────────────────────────────────────────
const SESSIONS = settings.quick ? 10_000 : 100_000;
{
  progress('hibernate', `building ${SESSIONS.toLocaleString('en')} sessions (a real turn each)`);
  const started = process.hrtime.bigint();
  const stored = new Array<string>(SESSIONS);
  const compact = new Array<string>(SESSIONS);
  const baseline = settledHeap();
  for (let index = 0; index < SESSIONS; index++) {
    const core = quickIdleCore(priorMessages(10, `#${index}`));
    stored[index] = hibernate(core);
    compact[index] = hibernateCompact(core);
  }
  const buildSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const withBoth = settledHeap();
  compact.fill('');
  const withFull = settledHeap();
  const fullBytes = (withFull - baseline) / SESSIONS;
  const compactBytes = (withBoth - withFull) / SESSIONS;
  let charsFull = 0;
  for (const text of stored) charsFull += text.length;

  // Wake 1,000 sessions spread over the store (a prime stride: distinct, same in every run):
  // parse, restore, next event; put each back to sleep.
  const woken = Math.min(1000, SESSIONS);
  const wakeStarted = process.hrtime.bigint();
  for (let count = 0; count < woken; count++) {
    const id = (count * 7919) % SESSIONS;
    const core = rehydrate(stored[id]!);
    const actions = core.handleEvent({ type: 'UserInput', message: NEXT_INPUT });
    if (core.state !== 'CallingLlm' || actions[0]?.type !== 'SendLlmRequest') {
      throw new Error(`session ${id} did not wake up: ${core.state}`);
    }
    stored[id] = hibernate(core);
  }
  const wakeNs = Number(process.hrtime.bigint() - wakeStarted) / woken;
  const rss = process.memoryUsage().rss;
  const label = `${SESSIONS.toLocaleString('en')} sessions`;
  progress(
    'hibernate',
    `${SESSIONS} sessions: ${Math.round(fullBytes)} B each as snapshot JSON, ${Math.round(compactBytes)} B compact; wake + event + sleep ${Math.round(wakeNs / 1000)} µs`,
  );
  figures.push(
    figure(
      'hibernate100k',
      `${label}: heap per session, JSON.stringify(core.snapshot())`,
      0,
      'bytes',
      [fullBytes],
    ),
    figure(
      'hibernate100k',
      `${label}: heap per session, compact JSON (no config; prototype)`,
      0,
      'bytes',
      [compactBytes],
    ),
    figure('hibernate100k', `${label}: heap in all, JSON.stringify(core.snapshot())`, 0, 'bytes', [
      withFull - baseline,
    ]),
    figure(
      'hibernate100k',
      `wake (parse + fromSnapshot) + next event + sleep, ${woken} sessions`,
      0,
      'ns',
      [wakeNs],
    ),
  );
  extra.hundredThousand = {
    sessions: SESSIONS,
    buildSeconds,
    heapBytesPerSessionFull: fullBytes,
    heapBytesPerSessionCompact: compactBytes,
    meanJsonChars: charsFull / SESSIONS,
    totalHeapMB: (withFull - baseline) / 2 ** 20,
    rssMBAtEnd: rss / 2 ** 20,
    wokenSessions: woken,
    wakeEventSleepNs: wakeNs,
  };
  stored.fill('');
}

// ── per history size: bytes and times ────────────────────────────────────────────────────────
const sizes: Record<string, unknown> = {};
for (const n of HISTORY_SIZES) {
  const core = idleCore(priorMessages(n));
  const snapshot = core.snapshot();
  const stored = hibernate(core);
  const full = stored.length;
  const compactLength = hibernateCompact(core).length;
  const messages = jsonBytes(snapshot.context.messages);
  // Not stored any more: what a stored config would have cost, for comparison.
  const config = jsonBytes(core.context.config);
  const toolRuns = jsonBytes(snapshot.context.toolRuns);
  sizes[n] = { full, compact: compactLength, messages, config, toolRuns };
  figures.push(
    figure('hibernateBytes', 'snapshot JSON beyond the transcript', n, 'bytes', [full - messages]),
    figure('hibernateBytes', 'stored string in V8 beyond the transcript JSON', n, 'bytes', [
      stringHeapBytes(stored) - messages,
    ]),
    figure('hibernateBytes', '… of which context.config (replaced on restore)', n, 'bytes', [
      config,
    ]),
    figure('hibernateBytes', '… of which toolRuns of the last response', n, 'bytes', [toolRuns]),
    figure('hibernateBytes', 'compact JSON beyond the transcript (prototype)', n, 'bytes', [
      compactLength - messages,
    ]),
  );
}
extra.jsonChars = sizes;

const perSample = (n: number) => (n >= 10_000 ? 3 : n >= 1000 ? 20 : 200);
const cases: Record<string, Prepare> = {};
for (const n of HISTORY_SIZES) {
  const prior = priorMessages(n);
  cases[`restore@${n}`] = () => {
    const count = Math.max(1, Math.round(perSample(n) * (settings.quick ? 0.25 : 1)));
    const cores = Array.from({ length: count }, () => idleCore(prior));
    const json: string[] = [];
    const parsed: AgentSnapshot[] = [];
    const restored: AgentCore[] = [];
    return [
      each('hibernate', cores, (core) => json.push(hibernate(core))),
      each('parse', json, (text) => parsed.push(JSON.parse(text) as AgentSnapshot)),
      each('fromSnapshot', parsed, (snapshot) =>
        restored.push(AgentCore.fromSnapshot(snapshot, SESSION_CONFIG)),
      ),
      // Collect the parse and restore garbage first, so its GC is not charged to the event.
      { name: 'settle', ops: 1, timed: false, run: collectGarbage },
      each('firstEvent', restored, (core) => {
        core.handleEvent({ type: 'UserInput', message: NEXT_INPUT });
      }),
      // The share of fromSnapshot spent on its defensive deep copy of the context.
      each('structuredClone', cores, (core) => {
        structuredClone(core.snapshot().context);
      }),
      each(
        'check',
        restored,
        (core) => {
          if (core.state !== 'CallingLlm' || core.context.messages.length !== n + 5) {
            throw new Error(`restore@${n}: ${core.state} with ${core.context.messages.length}`);
          }
        },
        false,
      ),
    ];
  };
}
progress('hibernate', `timing hibernate/restore: ${settings.rounds} rounds`);
const series = await measureInterleaved(cases, {
  ...settings,
  onRound: (round) => progress('hibernate', `round ${round}/${settings.rounds}`),
});
const timings: Array<[string, string]> = [
  ['hibernate', 'hibernate: JSON.stringify(core.snapshot())'],
  ['parse', 'wake: JSON.parse'],
  ['fromSnapshot', 'wake: AgentCore.fromSnapshot'],
  ['structuredClone', '… its structuredClone(context), measured alone'],
  ['firstEvent', 'first event after waking (UserInput)'],
];
for (const n of HISTORY_SIZES) {
  for (const [block, label] of timings) {
    figures.push(timingFigure('hibernateTime', label, n, series.get(`restore@${n}/${block}`)));
  }
}

finishPhase({ phase: 'hibernate', figures, extra });
