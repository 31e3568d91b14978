/**
 * `npm run bench`: the end-to-end density benchmark (N concurrent agents each doing one agent
 * turn against a pacing Messages API server; see docs/performance.md), then the secondary
 * per-turn table, then the persistence table (durable sessions on SQLite, next to LangGraph.js's
 * SqliteSaver). This process only compiles the code, starts the processes that serve and
 * measure, prints the tables and the targets, and writes bench/results.json.
 *
 * Options (after `npm run bench --`):
 * - `--quick`: 20 and 50 agents and fewer rounds, to try the harness (results go to the temp
 *   directory);
 * - `--agents=100,500` and `--rounds=3`: other N and rounds (every N gets the same rounds);
 * - `--subjects=sdk,agent`: only these subjects (ids in bench/density/densitySubjects.ts);
 * - `--events-per-ms=5`: another arrival rate (the default keeps the floor under one core);
 * - `--cpu-prof[=dir]`: a V8 CPU profile of every measured process (default bench/.cpu-prof);
 * - `--baseline=<git ref>` (`HEAD~3`, a hash, a branch): also measures the package as it was at
 *   that commit, built from a git worktree kept in node_modules/.cache and compiled like this
 *   checkout: a density subject `agentBase` (the `agent` subject's code on that build) in the
 *   same rounds as `agent`, paired with it per round, and in the persistence table the same
 *   durable turn on that build beside ours (results go to the temp directory);
 * - `--no-per-turn`, `--no-persistence`, `--no-density`: skip that part;
 * - `--persistence=compaction`: of the persistence table, only what compaction is judged by (a
 *   durable turn at 10 messages and at 10,000, compacted to the active window and not; resuming
 *   10,000 messages, compacted and not); with `--no-density --no-per-turn`, a run of a minute or
 *   two.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BaselineBuild,
  describeBaseline,
  loadBaselinePackage,
  useBaseline,
} from './baseline/baselinePackage.js';
import { buildBaseline } from './baseline/buildBaseline.js';
import { eventsPerTurn } from './density/agentTurn.js';
import { densityFigures } from './density/densityFigures.js';
import {
  type DensityPlan,
  type DensityRun,
  type DensityStep,
  runDensityRounds,
} from './density/densityRounds.js';
import { DENSITY_SUBJECTS, planDensitySubjects } from './density/densitySubjects.js';
import { renderDensityTable } from './density/densityTable.js';
import { AGENT_EXPORTS } from './density/subjects/createAgentSubject.js';
import { DURABLE_EXPORTS } from './persistence/durablePackage.js';
import { PERSISTENCE_METHOD, renderPersistenceTables } from './persistence/persistenceTables.js';
import { captureEnvironment } from './report/environment.js';
import type { PhaseResult } from './report/figures.js';
import { renderSection } from './report/table.js';
import { describeTarget, evaluateTargets } from './report/targets.js';

/**
 * SSE events per millisecond that reach the measured process, at every N: each stream's delay
 * between events is N ÷ this, so the floor (the bare SDK) keeps well under one core at every N
 * and the 2-core machine has room for the pacing server too (see docs/performance.md).
 */
const EVENTS_PER_MS = 16;

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

const quick = process.argv.includes('--quick');
const agentsOption = option('agents')?.split(',').map(Number);
const roundsOption = option('rounds');
const subjectsOption = option('subjects')?.split(',');
const cpuProfile = process.argv.includes('--cpu-prof') ? 'bench/.cpu-prof' : option('cpu-prof');
const eventsPerMs = Number(option('events-per-ms') ?? EVENTS_PER_MS);
const baselineRef = option('baseline');
if (baselineRef === '' || process.argv.includes('--baseline')) {
  throw new Error('bench: --baseline takes a git ref, e.g. --baseline=HEAD~3');
}
const skipDensity = process.argv.includes('--no-density');
const skipPerTurn = process.argv.includes('--no-per-turn');
const skipPersistence = process.argv.includes('--no-persistence');
const persistenceOnly = option('persistence');
if (persistenceOnly !== undefined && persistenceOnly !== 'compaction') {
  throw new Error(`bench: --persistence takes 'compaction'; got '${persistenceOnly}'`);
}

function densityPlan(): DensityPlan {
  const defaults: DensityStep[] = quick
    ? [
        { agents: 20, rounds: 2 },
        { agents: 50, rounds: 1 },
      ]
    : [
        { agents: 100, rounds: 2 },
        { agents: 500, rounds: 1 },
        // LangGraph.js + MemorySaver at 1,000 agents is the longest run of all and tells little
        // that LangGraph.js alone does not; it would not fit the ten minutes with the rest.
        // `--agents=1000 --subjects=lgSaver` measures it.
        { agents: 1_000, rounds: 1, skip: ['lgSaver'] },
      ];
  const rounds = roundsOption === undefined ? undefined : Number(roundsOption);
  const steps = (agentsOption ?? defaults.map((step) => step.agents)).map((agents) => {
    const preset = defaults.find((step) => step.agents === agents);
    return {
      agents,
      rounds: rounds ?? preset?.rounds ?? 1,
      // Subjects asked for by name always run.
      skip: subjectsOption === undefined ? (preset?.skip ?? []) : [],
    };
  });
  const subjects = planDensitySubjects(subjectsOption, baselineRef !== undefined);
  const positive = (value: number) => Number.isFinite(value) && value > 0;
  const stepsValid = steps.every((step) => positive(step.agents) && positive(step.rounds));
  if (!stepsValid || !positive(eventsPerMs)) {
    throw new Error('bench: --agents, --rounds and --events-per-ms take positive numbers');
  }
  return {
    steps,
    subjects,
    warmupAgents: quick ? 10 : 20,
    eventDelayMs: (agents) => Math.max(1, Math.round(agents / eventsPerMs)),
    ...(cpuProfile === undefined ? {} : { cpuProfileDir: cpuProfile }),
  };
}

/**
 * Everything runs compiled, as plain JavaScript, the way a service runs the published package
 * (the tsx loader that runs this file gives every closure a `name` of its own).
 */
const BUILD_DIR = fileURLToPath(
  new URL('../node_modules/.cache/agent-statechart-bench/', import.meta.url),
);
const compiled = (path: string) => join(BUILD_DIR, 'bench', path.replace(/\.ts$/, '.js'));
/** Where `--baseline` keeps its worktree and build, between runs. */
const BASELINE_DIR = fileURLToPath(
  new URL('../node_modules/.cache/agent-statechart-bench-baseline/', import.meta.url),
);

function compileBench(): void {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL('./tsconfig.json', import.meta.url));
  // `npm run typecheck` checks the bench; here tsc only has to emit.
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--noCheck'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new Error(`compiling the bench failed (tsc exited ${result.status})`);
  }
}

/** A phase (a script under bench/), in a process of its own, given `flags`; returns its result. */
async function runPhase(name: string, script: string, flags: string[] = []): Promise<PhaseResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'agent-statechart-bench-'));
  const out = join(workDir, `${name}.json`);
  const args = ['--expose-gc', compiled(script), out, ...flags];
  if (quick) args.push('--quick');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`the ${name} phase exited with ${code}`)),
      );
    });
    return JSON.parse(readFileSync(out, 'utf8')) as PhaseResult;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const environment = captureEnvironment();
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s`;
process.stderr.write(
  `agent-statechart bench${quick ? ' (quick)' : ''}: Node ${environment.node}, ${environment.cpu}, ${environment.cores} cores, load ${environment.loadAverageAtStart.join(' ')}\n`,
);
process.stderr.write('compiling src and bench…\n');
compileBench();
if (cpuProfile !== undefined) mkdirSync(cpuProfile, { recursive: true });

/**
 * Builds the baseline and makes it the one every process started from here measures; fails now,
 * not in the middle of the run, when it lacks what the parts that run call.
 */
async function prepareBaseline(ref: string): Promise<BaselineBuild> {
  process.stderr.write(`building the baseline ${ref}…\n`);
  const build = buildBaseline(ref, {
    checkout: fileURLToPath(new URL('..', import.meta.url)),
    cacheDir: BASELINE_DIR,
  });
  useBaseline(build);
  if (!skipDensity) await loadBaselinePackage(AGENT_EXPORTS, 'the agentBase subject (density)');
  if (!skipPersistence) {
    await loadBaselinePackage(DURABLE_EXPORTS, "the persistence table's durable turn");
  }
  process.stderr.write(`baseline: ${describeBaseline(build)}, committed ${build.committedAt}\n`);
  return build;
}

const baseline = baselineRef === undefined ? undefined : await prepareBaseline(baselineRef);
const plan = densityPlan();
const runs: DensityRun[] = skipDensity
  ? []
  : await runDensityRounds(
      plan,
      {
        pacer: compiled('pacer/pacingServer.ts'),
        measuredRun: compiled('density/measuredRun.ts'),
      },
      (run, done, total) => {
        const { metrics } = run;
        process.stderr.write(
          `${elapsed()} [density ${done}/${total}] round ${run.round + 1}, N=${run.agents}, ${run.subject}: ${(metrics.cpuMs / run.agents).toFixed(2)} ms CPU per turn, ${(metrics.wallMs / 1000).toFixed(1)} s wall, loop p99 ${metrics.loopDelayP99Ms.toFixed(1)} ms, load ${run.loadAverage.toFixed(1)}\n`,
        );
      },
    );
const perTurn = skipPerTurn ? undefined : await runPhase('per-turn', 'perTurn/perTurnPhase.ts');
const persistence = skipPersistence
  ? undefined
  : await runPhase(
      'persistence',
      'persistence/persistencePhase.ts',
      persistenceOnly === undefined ? [] : [`--persistence=${persistenceOnly}`],
    );
const seconds = (Date.now() - started) / 1000;

const figures = [
  ...densityFigures(runs),
  ...(perTurn?.figures ?? []),
  ...(persistence?.figures ?? []),
];
const targets = evaluateTargets(figures);
const describeStep = (agents: number) => {
  const step = plan.steps.find((entry) => entry.agents === agents);
  const rounds = step?.rounds ?? 0;
  const delay = plan.eventDelayMs(agents);
  const paced = ((eventsPerTurn() * delay) / 1000).toFixed(1);
  return `${delay} ms between SSE events (a turn's ${eventsPerTurn()} events take ${paced} s at least), ${rounds} round${rounds === 1 ? '' : 's'}`;
};
const lines: string[] = [
  '',
  `agent-statechart benchmarks — Node ${environment.node}, ${environment.cpu}, ${environment.cores} cores, ${environment.memoryGB} GB`,
  `commit ${environment.git.commit}${environment.git.dirtySrc.length > 0 ? ` + uncommitted src changes (${environment.git.dirtySrc.length} files)` : ''}; load average ${environment.loadAverageAtStart.join(' ')} at start, ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} at end; ${seconds.toFixed(0)} s`,
  ...(baseline === undefined
    ? []
    : [
        `baseline build: ${describeBaseline(baseline)}, commit ${baseline.commit}, committed ${baseline.committedAt}`,
        '  measured beside this checkout in the same rounds: createAgent (density) and the durable turn (persistence); the per-turn table has no baseline',
      ]),
  '',
];
if (!skipDensity) {
  lines.push(
    'END TO END: N concurrent agents, one agent turn each (600 text deltas and a tool call, the tool, a short second stream),',
    'against a pacing Messages API server in its own process. Median (min–max) over rounds; ratios paired per round.',
    '',
    ...renderDensityTable(figures, describeStep),
  );
}
if (perTurn !== undefined) {
  lines.push(
    ...renderSection(
      {
        id: 'turn',
        title: 'PER TURN, instant model and tools (CPU time per turn; n = prior messages)',
      },
      figures,
    ),
    '',
    ...renderSection({ id: 'turnRatio', title: 'Per-turn ratios (paired per round)' }, figures),
    '',
  );
}
if (persistence !== undefined) lines.push(...renderPersistenceTables(figures), '');
lines.push('TARGETS');
for (const result of targets) lines.push(...describeTarget(result));
process.stdout.write(`${lines.join('\n')}\n`);

const output = {
  environment: { ...environment, loadAverageAtEnd: loadavg(), runSeconds: seconds, quick },
  baseline: baseline ?? null,
  method: {
    density: `A pacing server (src/testing startMessagesApiServer, its own process) streams the exact Messages API event sequence, one SSE event per socket write, with a fixed delay between events of N ÷ ${eventsPerMs} ms at N agents. Each measured run is a fresh process: one subject, warmed up against an unpaced server, N agents built, garbage collected, then the N turns timed together. CPU is process.cpuUsage (user + system) of that process ÷ N; wall time from the first request to the last turn done; peak RSS sampled every 20 ms; event-loop delay from monitorEventLoopDelay (1 ms resolution, the interval subtracted). Subjects alternate within a round in an order that rotates every round; ratios are paired per round.`,
    perTurn:
      'CPU time (process.cpuUsage) per turn with instant model and tools; each subject sampled in its own process in interleaved rounds after a 2 s CPU warm-up; median and min–max over rounds; ratios paired per round.',
    persistence: PERSISTENCE_METHOD,
  },
  plan: {
    steps: plan.steps.map((step) => ({ ...step, eventDelayMs: plan.eventDelayMs(step.agents) })),
    subjects: Object.fromEntries(plan.subjects.map((id) => [id, DENSITY_SUBJECTS[id].label])),
    warmupAgents: plan.warmupAgents,
  },
  targets,
  density: { runs, figures: figures.filter((figure) => figure.section.startsWith('density:')) },
  perTurn: perTurn ?? null,
  persistence: persistence ?? null,
};
// A quick or partial run, or one against a baseline, is not the benchmark: it never replaces
// results.json.
const partial =
  quick ||
  baseline !== undefined ||
  skipDensity ||
  perTurn === undefined ||
  persistence === undefined ||
  persistenceOnly !== undefined ||
  agentsOption !== undefined ||
  subjectsOption !== undefined ||
  eventsPerMs !== EVENTS_PER_MS;
const resultsPath = partial
  ? join(tmpdir(), 'agent-statechart-bench-partial.json')
  : fileURLToPath(new URL('./results.json', import.meta.url));
writeFileSync(resultsPath, `${JSON.stringify(output, null, 2)}\n`);
process.stderr.write(`wrote ${resultsPath} (${seconds.toFixed(0)} s)\n`);
