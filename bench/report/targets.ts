/**
 * The targets, checked against the figures of one run. A check uses the median; when the
 * min–max range of the same figure crosses the threshold the check says so, because on a noisy
 * machine a median just inside the line is not a comfortable pass.
 */
import type { Figure } from './figures.js';
import { formatFigure } from './format.js';

export interface Check {
  label: string;
  n: number;
  median: number;
  min: number;
  max: number;
  met: boolean;
  /** The min–max range crosses the threshold. */
  rangeCrosses: boolean;
}

export interface TargetResult {
  id: string;
  target: string;
  met: boolean;
  checks: Check[];
}

type Comparison = 'atMost' | 'atLeast';

function check(
  figure: Figure,
  threshold: number,
  comparison: Comparison,
  label = figure.row,
): Check {
  const passes = (value: number) =>
    comparison === 'atMost' ? value <= threshold : value >= threshold;
  return {
    label,
    n: figure.n,
    median: figure.median,
    min: figure.min,
    max: figure.max,
    met: passes(figure.median),
    rangeCrosses: passes(figure.min) !== passes(figure.max),
  };
}

function pick(figures: Figure[], section: string, match: (row: string) => boolean): Figure[] {
  return figures.filter((figure) => figure.section === section && match(figure.row));
}

function target(id: string, text: string, checks: Check[]): TargetResult {
  if (checks.length === 0) throw new Error(`target ${id}: no figures to check`);
  return { id, target: text, met: checks.every((entry) => entry.met), checks };
}

export function evaluateTargets(figures: Figure[]): TargetResult[] {
  const has = (part: string) => (row: string) => row.includes(part);
  const ours = (row: string) => row.startsWith('ours');
  const memoryForms = pick(figures, 'memory', ours);
  return [
    target(
      'delta-vs-reducer',
      'streaming delta ≤ 5× the hand-written reducer (createAgent, 64 deltas per tick)',
      pick(figures, 'deltaRatio', has('createAgent 64/tick ÷ hand')).map((f) =>
        check(f, 5, 'atMost'),
      ),
    ),
    target(
      'delta-vs-reducer-worst-case',
      'the same, worst case of one delta per tick',
      pick(figures, 'deltaRatio', has('createAgent 1/tick ÷ hand')).map((f) =>
        check(f, 5, 'atMost'),
      ),
    ),
    target(
      'delta-vs-naive',
      'streaming delta ≥ 40× cheaper than the naive XState machine (64 deltas per tick)',
      pick(figures, 'deltaRatio', has('naive XState ÷ createAgent 64/tick')).map((f) =>
        check(f, 40, 'atLeast'),
      ),
    ),
    target(
      'delta-vs-naive-worst-case',
      'the same, worst case of one delta per tick',
      pick(figures, 'deltaRatio', has('naive XState ÷ createAgent 1/tick')).map((f) =>
        check(f, 40, 'atLeast'),
      ),
    ),
    target(
      'delta-flat',
      'per-delta cost flat: 10,000 messages ≤ 1.2× 10 messages',
      pick(
        figures,
        'deltaFlat',
        (row) =>
          row.startsWith('ours') && !row.includes('setImmediate') && !row.includes('inspect'),
      ).map((f) => check(f, 1.2, 'atMost')),
    ),
    target(
      'event-flat',
      'per-event cost flat: 10,000 messages ≤ 1.2× 10 messages',
      pick(figures, 'eventFlat', has('— ours')).map((f) => check(f, 1.2, 'atMost')),
    ),
    target(
      'handleEvent-vs-send',
      'AgentCore.handleEvent ≤ 1.3× an actor send (same event, same state)',
      pick(figures, 'handleEventRatio', () => true).map((f) => check(f, 1.3, 'atMost')),
    ),
    target(
      'idle-memory',
      'an idle agent ≤ 1 KB (1,024 B) plus its conversation, held the documented way (hibernated JSON)',
      pick(figures, 'hibernateBytes', has('stored string in V8')).map((f) =>
        check(f, 1024, 'atMost'),
      ),
    ),
    target(
      'idle-memory-live',
      'the same measured as heap growth per session, and for agents kept live: reported',
      memoryForms
        .filter(
          (f) =>
            f.row.includes('hibernated') ||
            f.row === 'ours: createAgent (idle actor)' ||
            f.row === 'ours: AgentCore',
        )
        .map((f) => check(f, 1024, 'atMost')),
    ),
    target(
      'turn-vs-langgraph',
      'per-turn overhead ≥ 20× below LangGraph.js (no checkpointer)',
      pick(figures, 'turnRatio', (row) => row.startsWith('LangGraph.js ÷')).map((f) =>
        check(f, 20, 'atLeast'),
      ),
    ),
  ];
}

export function describeTarget(result: TargetResult): string[] {
  const lines = [`${result.met ? '[met]   ' : '[MISSED]'} ${result.target}`];
  for (const entry of result.checks) {
    const where = entry.n === 0 ? '' : ` @${entry.n.toLocaleString('en')}`;
    const figure: Figure = {
      section: '',
      row: entry.label,
      n: entry.n,
      unit: result.id.startsWith('idle-memory') ? 'bytes' : 'x',
      median: entry.median,
      min: entry.min,
      max: entry.max,
      samples: entry.min === entry.max ? [entry.median] : [entry.min, entry.median, entry.max],
    };
    const flag = entry.met ? 'ok  ' : 'MISS';
    const noisy = entry.rangeCrosses ? '  (min–max crosses the line)' : '';
    lines.push(`           ${flag} ${entry.label}${where}: ${formatFigure(figure)}${noisy}`);
  }
  return lines;
}
