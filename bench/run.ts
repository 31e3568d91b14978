/**
 * `npm run bench`: cost per delta, per event, per turn and per idle agent, side by side with a
 * hand-written reducer, a naive XState machine and LangGraph.js, at 10, 1,000 and 10,000 prior
 * messages. Each phase runs in its own Node process (fresh heap and JIT, `--expose-gc`); this
 * process only starts them, prints the table and the targets, and writes bench/results.json.
 *
 * `npm run bench -- --quick` runs fewer rounds and smaller sizes (to try the harness out) and
 * writes its results to the temp directory instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureEnvironment } from './report/environment.js';
import type { Figure, PhaseResult } from './report/figures.js';
import { renderSection, type Section } from './report/table.js';
import { describeTarget, evaluateTargets } from './report/targets.js';

const quick = process.argv.includes('--quick');
const phases: Array<[string, string]> = [
  ['stream', 'streamBatchPhase.ts'],
  ['delta', 'deltaPhase.ts'],
  ['events', 'eventPhase.ts'],
  ['turn', 'turnPhase.ts'],
  ['graph', 'graphPhase.ts'],
  ['memory', 'memoryPhase.ts'],
  ['hibernate', 'hibernatePhase.ts'],
];

const SECTIONS: Section[] = [
  {
    id: 'streamBatch',
    title: 'Fast stream, real SDK + llmActor + DeltaCoalescer: deltas per I/O tick',
  },
  { id: 'delta', title: 'Streaming text delta, model call → listener (CPU time per delta)' },
  { id: 'deltaRatio', title: 'Streaming delta ratios (paired per round)' },
  { id: 'deltaFlat', title: 'Streaming delta, 10,000 ÷ 10 prior messages' },
  { id: 'deltaLoop', title: 'For scale: one event-loop tick' },
  { id: 'event:delta', title: 'Event: LlmTextDelta, a single delta (CPU time per event)' },
  { id: 'event:toolPending', title: 'Event: ToolCompleted while the other call still runs' },
  {
    id: 'event:toolLast',
    title: 'Event: ToolCompleted, last call (appends tool results, starts the next model call)',
  },
  {
    id: 'event:llmText',
    title: 'Event: LlmCompleted with text (appends the answer, back to idle)',
  },
  { id: 'lgStep', title: '(c) LangGraph.js has no per-event API: its unit is a superstep' },
  {
    id: 'handleEventRatio',
    title: 'AgentCore.handleEvent ÷ bare actor.send, same event (target ≤ 1.3)',
  },
  { id: 'eventRatio', title: 'Event ratios' },
  { id: 'eventFlat', title: 'Events, 10,000 ÷ 10 prior messages' },
  { id: 'append', title: 'Appending one message to the transcript (CPU time per append)' },
  { id: 'turn', title: 'One full turn, instant model and tools (CPU time per turn)' },
  { id: 'turnRatio', title: 'Per-turn ratios (LangGraph.js ÷ ours: target ≥ 20)' },
  { id: 'turnFlat', title: 'Per turn, 10,000 ÷ 10 prior messages' },
  { id: 'memory', title: 'Idle agent after one turn: bytes beyond its conversation' },
  {
    id: 'memoryConversation',
    title: '… the conversation itself (transcript objects, or one JSON copy)',
  },
  {
    id: 'hibernate100k',
    title: 'Hibernated sessions held in one process (10 prior messages each)',
  },
  { id: 'hibernateBytes', title: 'Hibernated session: JSON characters beyond the transcript' },
  { id: 'hibernateTime', title: 'Hibernate and wake (CPU time per session)' },
  { id: 'graph', title: 'Generating graph tests: getShortestPaths (CPU time per generation)' },
  { id: 'graphPaths', title: 'Paths generated' },
  { id: 'graphRatio', title: 'Graph generation ratio' },
  { id: 'graphFlat', title: 'Graph generation, 10,000 ÷ 10 prior messages' },
];

/**
 * The phases run compiled, as plain JavaScript, the way a service runs the published package:
 * the tsx loader that runs this file would give every closure the phases create a `name`
 * property of its own (esbuild's keepNames), which costs time per closure and about 1.6 KB per
 * idle agent that the package itself does not.
 */
const BUILD_DIR = fileURLToPath(
  new URL('../node_modules/.cache/agent-statechart-bench/', import.meta.url),
);

function compileBench(): void {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL('./tsconfig.json', import.meta.url));
  const result = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`compiling the bench failed (tsc exited ${result.status})`);
}

function runPhase(file: string, out: string): Promise<void> {
  const script = join(BUILD_DIR, 'bench', 'phases', file.replace(/\.ts$/, '.js'));
  const args = ['--expose-gc', '--max-old-space-size=4096', script, out];
  if (quick) args.push('--quick');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`)),
    );
  });
}

const environment = captureEnvironment();
const started = Date.now();
process.stderr.write(
  `agent-statechart bench${quick ? ' (quick)' : ''}: Node ${environment.node}, ${environment.cpu}, ${environment.cores} cores, load ${environment.loadAverageAtStart.join(' ')}\n`,
);
process.stderr.write('compiling src and bench…\n');
compileBench();
const workDir = mkdtempSync(join(tmpdir(), 'agent-statechart-bench-'));
const results: PhaseResult[] = [];
const phaseSeconds: Record<string, number> = {};
try {
  for (const [name, file] of phases) {
    const phaseStarted = Date.now();
    process.stderr.write(`phase ${name}…\n`);
    const out = join(workDir, `${name}.json`);
    await runPhase(file, out);
    results.push(JSON.parse(readFileSync(out, 'utf8')) as PhaseResult);
    phaseSeconds[name] = (Date.now() - phaseStarted) / 1000;
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
const seconds = (Date.now() - started) / 1000;
const figures: Figure[] = results.flatMap((result) => result.figures);
const targets = evaluateTargets(figures);

const lines: string[] = [
  '',
  `agent-statechart benchmarks — Node ${environment.node}, ${environment.cpu}, ${environment.cores} cores, ${environment.memoryGB} GB`,
  `commit ${environment.git.commit}${environment.git.dirtySrc.length > 0 ? ` + uncommitted src changes (${environment.git.dirtySrc.length} files)` : ''}; load average ${environment.loadAverageAtStart.join(' ')} at start, ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} at end; ${seconds.toFixed(0)} s`,
  'Timings are CPU time of the benchmark process per operation: median (min–max) of interleaved rounds.',
  '',
];
for (const section of SECTIONS) {
  const block = renderSection(section, figures);
  if (block.length > 0) lines.push(...block, '');
}
lines.push('TARGETS');
for (const result of targets) lines.push(...describeTarget(result));
process.stdout.write(`${lines.join('\n')}\n`);

const output = {
  environment: {
    ...environment,
    loadAverageAtEnd: loadavg(),
    runSeconds: seconds,
    phaseSeconds,
    quick,
  },
  method: {
    timing:
      'CPU time (process.cpuUsage, user + system, V8 helper threads included) per operation; a full GC and a short idle pause before each timed block, so the collection of garbage made earlier is not billed to it; each comparison sampled in interleaved rounds (every subject once per round, rotating order); median and min–max over rounds; ratios paired per round.',
    memory:
      'heapUsed + arrayBuffers after two forced full GCs (--expose-gc), before and after building N idle agents; the conversation measured by keeping only the transcripts and measuring again.',
  },
  targets,
  phases: results,
};
// A quick run is a harness check, not a measurement: it never replaces bench/results.json.
const resultsPath = quick
  ? join(tmpdir(), 'agent-statechart-bench-quick.json')
  : fileURLToPath(new URL('./results.json', import.meta.url));
writeFileSync(resultsPath, `${JSON.stringify(output, null, 2)}\n`);
process.stderr.write(`wrote ${resultsPath} (${seconds.toFixed(0)} s)\n`);
