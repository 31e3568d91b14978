/**
 * Runs the density benchmark's schedule: interleaved rounds in which every subject does its N
 * concurrent agent turns, each run in a fresh measured process (bench/density/measuredRun.ts),
 * one run at a time, against a pacing server in a process of its own. Within a round, subjects
 * alternate in an order that rotates every round, so a burst of load from a neighbour falls on
 * different subjects in different rounds, and the runs a ratio pairs are minutes apart at most.
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import type { DensitySubjectId } from './densitySubjects.js';
import type { MeasuredRunMessage } from './measuredRun.js';
import { type Pacer, startPacer } from './pacers.js';
import type { RunMetrics } from './runMetrics.js';

/** How many concurrent agents, in how many rounds, and which subjects sit this N out. */
export interface DensityStep {
  agents: number;
  rounds: number;
  skip?: readonly DensitySubjectId[];
}

function subjectsOf(plan: DensityPlan, step: DensityStep): DensitySubjectId[] {
  return plan.subjects.filter((subject) => !step.skip?.includes(subject));
}

export interface DensityPlan {
  steps: DensityStep[];
  subjects: DensitySubjectId[];
  /** Agents whose turns warm each measured process up, against an unpaced server. */
  warmupAgents: number;
  /** The pause between two SSE events of one stream at `agents` concurrent agents. */
  eventDelayMs: (agents: number) => number;
  /** Write a V8 CPU profile of every measured process into this directory. */
  cpuProfileDir?: string;
}

/** One measured run. */
export interface DensityRun {
  round: number;
  agents: number;
  subject: DensitySubjectId;
  eventDelayMs: number;
  metrics: RunMetrics;
  /** The machine's 1-minute load average when the run ended: how much the neighbours took. */
  loadAverage: number;
}

/** The compiled scripts the runs start. */
export interface DensityScripts {
  pacer: string;
  measuredRun: string;
}

function measure(
  scripts: DensityScripts,
  plan: DensityPlan,
  subject: DensitySubjectId,
  agents: number,
  paced: Pacer,
  unpaced: Pacer,
): Promise<RunMetrics> {
  const execArgv = ['--expose-gc', '--max-old-space-size=4096'];
  if (plan.cpuProfileDir !== undefined) {
    execArgv.push(
      '--cpu-prof',
      `--cpu-prof-dir=${plan.cpuProfileDir}`,
      `--cpu-prof-name=${subject}-${agents}-${Date.now()}.cpuprofile`,
    );
  }
  const child = fork(
    scripts.measuredRun,
    [
      `--subject=${subject}`,
      `--agents=${agents}`,
      `--url=${paced.baseURL}`,
      `--warmup-url=${unpaced.baseURL}`,
      `--warmup-agents=${plan.warmupAgents}`,
    ],
    { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  return new Promise((resolve, reject) => {
    let reply: MeasuredRunMessage | undefined;
    child.once('message', (message: MeasuredRunMessage) => {
      reply = message;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (reply?.type === 'result') resolve(reply.metrics);
      else {
        const why = reply?.type === 'failed' ? reply.message : `exited with ${code}`;
        reject(new Error(`${subject} at N=${agents}: ${why}`));
      }
    });
  });
}

function rotate<T>(list: readonly T[], by: number): T[] {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

/** Runs every step's rounds; reports progress through `onRun`. */
export async function runDensityRounds(
  plan: DensityPlan,
  scripts: DensityScripts,
  onRun: (run: DensityRun, done: number, total: number) => void,
): Promise<DensityRun[]> {
  const total = plan.steps.reduce(
    (sum, step) => sum + step.rounds * subjectsOf(plan, step).length,
    0,
  );
  const pacers = new Map<number, Pacer>();
  const unpaced = await startPacer(scripts.pacer, 0);
  const runs: DensityRun[] = [];
  try {
    for (const { agents } of plan.steps) {
      pacers.set(agents, await startPacer(scripts.pacer, plan.eventDelayMs(agents)));
    }
    const rounds = Math.max(...plan.steps.map((step) => step.rounds));
    for (let round = 0; round < rounds; round++) {
      for (const step of plan.steps) {
        if (round >= step.rounds) continue;
        const paced = pacers.get(step.agents)!;
        for (const subject of rotate(subjectsOf(plan, step), round)) {
          const metrics = await measure(scripts, plan, subject, step.agents, paced, unpaced);
          const run: DensityRun = {
            round,
            agents: step.agents,
            subject,
            eventDelayMs: paced.eventDelayMs,
            metrics,
            loadAverage: loadavg()[0] ?? NaN,
          };
          runs.push(run);
          onRun(run, runs.length, total);
        }
      }
    }
  } finally {
    await Promise.all([unpaced, ...pacers.values()].map((pacer) => pacer.stop()));
  }
  return runs;
}
