/**
 * The measured process: one subject, N concurrent agents, one agent turn each, against the
 * pacing server. Started fresh for every run (its own heap, JIT and peak memory), it loads only
 * its subject, warms it up against an unpaced server (so the run measures code that is already
 * compiled, as in a service that has been up for a while), builds the N agents, collects garbage,
 * then times the N turns together and sends the figures to its parent.
 *
 * Arguments: `--subject=<id> --agents=<N> --url=<paced base URL> --warmup-url=<unpaced base URL>`
 * `[--warmup-agents=<count>]`.
 */
import { DENSITY_SUBJECTS, isDensitySubjectId } from './densitySubjects.js';
import type { DensitySubject, TurnAgent } from './densitySubject.js';
import { type RunMetrics, startRunMetrics } from './runMetrics.js';

/** What the measured process reports. */
export type MeasuredRunMessage =
  { type: 'result'; metrics: RunMetrics } | { type: 'failed'; message: string };

function argument(name: string): string {
  const prefix = `--${name}=`;
  const value = process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
  if (value === undefined) throw new Error(`measuredRun: missing ${prefix}…`);
  return value;
}

async function buildAgents(subject: DensitySubject, url: string, count: number) {
  const agents: TurnAgent[] = [];
  for (let index = 0; index < count; index++) agents.push(await subject.createAgent(url, index));
  return agents;
}

/** Runs every agent's turn at once; throws with the first agent's problem, if any. */
async function runTurns(agents: readonly TurnAgent[]): Promise<void> {
  await Promise.all(agents.map((agent) => agent.runTurn()));
}

async function checkAndClose(agents: readonly TurnAgent[]): Promise<void> {
  const problems: string[] = [];
  for (const [index, agent] of agents.entries()) {
    const problem = await agent.check();
    if (problem !== null) problems.push(`agent ${index}: ${problem}`);
    await agent.close?.();
  }
  if (problems.length > 0) {
    throw new Error(`${problems.length} agent(s) did not finish the turn; ${problems[0]}`);
  }
}

async function main(): Promise<RunMetrics> {
  const id = argument('subject');
  if (!isDensitySubjectId(id)) throw new Error(`measuredRun: unknown subject ${id}`);
  const count = Number(argument('agents'));
  const url = argument('url');
  const warmupUrl = argument('warmup-url');
  const warmupAgents = Number(argument('warmup-agents'));
  const subject = await DENSITY_SUBJECTS[id].load();

  for (let pass = 0; pass < 2; pass++) {
    const warm = await buildAgents(subject, warmupUrl, warmupAgents);
    await runTurns(warm);
    await checkAndClose(warm);
  }

  const agents = await buildAgents(subject, url, count);
  globalThis.gc?.();
  const stop = startRunMetrics();
  await runTurns(agents);
  const metrics = stop();
  await checkAndClose(agents);
  return metrics;
}

const send = (message: MeasuredRunMessage) =>
  new Promise<void>((resolve) => {
    if (process.send === undefined) {
      process.stdout.write(`${JSON.stringify(message)}\n`);
      resolve();
    } else process.send(message, () => resolve());
  });

try {
  await send({ type: 'result', metrics: await main() });
} catch (error) {
  await send({
    type: 'failed',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}
// Agents may leave keep-alive sockets open; the run is over.
process.exit(0);
