/**
 * The timing harness of the per-turn table. The machine is shared and noisy, so every figure is a distribution: the
 * subjects of one comparison are sampled in interleaved rounds (round r samples every subject
 * once, in a rotating order), so a burst of load from a neighbour hits all of them alike, and each
 * subject's figure is the median of its rounds with the min–max beside it. Ratios are taken per
 * round, between samples taken moments apart, and reported the same way.
 *
 * Time is the process's CPU time (`process.cpuUsage`, user + system, GC threads included), not
 * wall time: on a shared machine a neighbour's time slice stretches wall time but not the work
 * done. Wall time is kept too, in results.json.
 */
import { type ChildProcess, fork } from 'node:child_process';

/** One timed (or untimed setup) step of a sample: `ops` operations done by `run`. */
export interface Block {
  name: string;
  ops: number;
  run: () => void | Promise<void>;
  /** Setup steps between timed ones (for example moving every subject to the next state). */
  timed?: boolean;
}

/** Prepares one sample, untimed: builds the subjects and returns the steps to run. */
export type Prepare = () => Block[] | Promise<Block[]>;

export interface MeasureOptions {
  /** Rounds that count. */
  rounds: number;
  /** Warm-up samples of every case, at least, before any is counted (thrown away). */
  warmup: number;
  /**
   * CPU time each process spends warming up, at least (the samples are thrown away). A few
   * samples are not enough: a turn through XState runs a hundred functions, which TurboFan keeps
   * optimising long after the first turns, and a service hosting many agents runs them warm.
   */
  warmupMs: number;
  /** Called after each round (progress on stderr). */
  onRound?: (round: number) => void;
  /**
   * Names the family of a case; each family is sampled in its own child process. Without it,
   * every case runs in this process.
   */
  family?: (id: string) => string;
}

/** Collects garbage when the process runs with --expose-gc, so one sample's garbage is not swept in the next. */
export function collectGarbage(): void {
  globalThis.gc?.();
}

/** Idle time after the GC that precedes each sample, at least. */
const SETTLE_MS = 5;
/** The longest the harness waits for V8's helper threads to fall quiet before a timed block. */
const SETTLE_LIMIT_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the process is idle: V8's helper threads sweep after a full GC, finish compiling
 * and so on, and CPU time counts them, so work left over from a sample's setup would land on its
 * timed block. Idle means a pause of `SETTLE_MS` used under a tenth of its length in CPU time.
 */
async function settle(): Promise<void> {
  const started = Date.now();
  for (;;) {
    const before = process.cpuUsage();
    await sleep(SETTLE_MS);
    const used = process.cpuUsage(before);
    const idle = used.user + used.system < (SETTLE_MS * 1000) / 10; // µs
    if (idle || Date.now() - started > SETTLE_LIMIT_MS) return;
  }
}

/** ns per operation of each counted round, as CPU time and as wall time. */
export interface Series {
  cpu: number[];
  wall: number[];
}

/** One timed block's figure: ns per operation. */
interface Sample {
  key: string;
  cpu: number;
  wall: number;
}

/**
 * Prepares one sample of a case and runs its blocks; returns the timed blocks' figures.
 * `quiet: false` (warm-up) skips waiting for an idle process before each timed block.
 */
async function sampleCase(id: string, prepare: Prepare, quiet = true): Promise<Sample[]> {
  const samples: Sample[] = [];
  const blocks = await prepare();
  for (const block of blocks) {
    // Each timed block starts on a clean heap, once V8's helper threads (which sweep after a
    // full GC) are done: garbage made before the block is not collected on its time.
    if (block.timed !== false) {
      collectGarbage();
      if (quiet) await settle();
    }
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    await block.run();
    const wall = Number(process.hrtime.bigint() - started);
    const cpuUsed = process.cpuUsage(cpuBefore);
    if (block.timed === false) continue;
    const cpu = (cpuUsed.user + cpuUsed.system) * 1000;
    const key = block.name === '' ? id : `${id}/${block.name}`;
    samples.push({ key, cpu: cpu / block.ops, wall: wall / block.ops });
  }
  return samples;
}

/**
 * Samples every case in interleaved rounds. Returns, per `case/block` key, the ns per operation
 * of each counted round.
 *
 * With `options.family`, the cases of each family run in their own child process (the phase
 * script started again, which serves its family's cases here instead of returning), while this
 * process keeps the rounds interleaved. Subjects sharing one V8 slow each other down: the
 * machine code, inline caches and GC heuristics tuned to one subject's work are what the next
 * one runs with; a service runs one of them, so each gets its own V8.
 */
export async function measureInterleaved(
  cases: Record<string, Prepare>,
  options: MeasureOptions,
): Promise<Map<string, Series>> {
  const served = servedFamily();
  if (served !== undefined) return serveFamily(cases, served, options);
  const ids = Object.keys(cases);
  // AGENT_STATECHART_BENCH_ONE_PROCESS=1 samples every case in this process, to compare.
  const family =
    process.env.AGENT_STATECHART_BENCH_ONE_PROCESS === '1' ? undefined : options.family;
  const run = family === undefined ? inProcess(cases, options) : await inFamilies(cases, family);
  const series = new Map<string, Series>();
  try {
    await run.warmUp();
    for (let round = 0; round < options.rounds; round++) {
      for (const id of roundOrder(ids, options.family, round)) {
        const samples = await run.sample(id);
        for (const { key, cpu, wall } of samples) {
          let values = series.get(key);
          if (values === undefined) series.set(key, (values = { cpu: [], wall: [] }));
          values.cpu.push(cpu);
          values.wall.push(wall);
        }
      }
      options.onRound?.(round + 1);
    }
  } finally {
    run.close();
  }
  return series;
}

/**
 * The order of one round: families in turn and, within a family, its cases back to back, both
 * rotated every round so no case always goes first. A family's cases (one subject at every
 * history size) are what flatness compares, so they are sampled moments apart, under the same
 * load.
 */
function roundOrder(
  ids: readonly string[],
  family: ((id: string) => string) | undefined,
  round: number,
): string[] {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const name = family?.(id) ?? id;
    let group = groups.get(name);
    if (group === undefined) groups.set(name, (group = []));
    group.push(id);
  }
  const rotate = <T>(list: readonly T[]): T[] => {
    const by = round % list.length;
    return [...list.slice(by), ...list.slice(0, by)];
  };
  return rotate([...groups.values()]).flatMap(rotate);
}

/** Where a case's samples are taken: in this process, or in its family's child. */
interface Sampler {
  /** Warms every case up (see `MeasureOptions.warmupMs`); children warm up side by side. */
  warmUp(): Promise<void>;
  sample(id: string): Promise<Sample[]>;
  close(): void;
}

function inProcess(cases: Record<string, Prepare>, options: MeasureOptions): Sampler {
  return {
    warmUp: () => warmUp(cases, Object.keys(cases), options),
    sample: (id) => sampleCase(id, cases[id]!),
    close: () => undefined,
  };
}

/** Samples `ids` in turn, results thrown away, until both warm-up minimums are reached. */
async function warmUp(
  cases: Record<string, Prepare>,
  ids: readonly string[],
  { warmup, warmupMs }: Pick<MeasureOptions, 'warmup' | 'warmupMs'>,
): Promise<void> {
  const started = process.cpuUsage();
  const spentMs = () => {
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  for (let pass = 0; pass < warmup || spentMs() < warmupMs; pass++) {
    for (const id of ids) await sampleCase(id, cases[id]!, false);
  }
}

/** Set in a child process: the family whose cases it serves. */
const FAMILY_VARIABLE = 'AGENT_STATECHART_BENCH_FAMILY';

/** In a child, the family whose cases it serves (its phase script prints no progress). */
export function servedFamily(): string | undefined {
  return process.env[FAMILY_VARIABLE];
}

type ToChild = { type: 'warmUp' } | { type: 'sample'; id: string } | { type: 'exit' };
type FromChild =
  | { type: 'ready' }
  | { type: 'warm' }
  | { type: 'samples'; id: string; samples: Sample[] }
  | { type: 'failed'; id: string; message: string };

/** Starts one child per family (all at once: their start-up overlaps) and samples through them. */
async function inFamilies(
  cases: Record<string, Prepare>,
  family: (id: string) => string,
): Promise<Sampler> {
  const families = [...new Set(Object.keys(cases).map(family))];
  const children = new Map<string, ChildProcess>();
  const close = () => {
    for (const child of children.values()) {
      if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
    }
  };
  try {
    await Promise.all(
      families.map(async (name) => {
        const child = fork(process.argv[1]!, process.argv.slice(2), {
          execArgv: process.execArgv,
          env: { ...process.env, [FAMILY_VARIABLE]: name },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.set(name, child);
        await nextMessage(child, name);
      }),
    );
  } catch (error) {
    close();
    throw error;
  }
  const request = async (name: string, message: ToChild): Promise<FromChild> => {
    const child = children.get(name)!;
    child.send(message);
    const reply = await nextMessage(child, name);
    if (reply.type === 'failed') throw new Error(`bench family ${name}: ${reply.message}`);
    return reply;
  };
  return {
    async warmUp() {
      // Nothing is timed yet, so the children warm up side by side, each for its own CPU time.
      await Promise.all([...children.keys()].map((name) => request(name, { type: 'warmUp' })));
    },
    async sample(id) {
      const reply = await request(family(id), { type: 'sample', id });
      if (reply.type !== 'samples' || reply.id !== id)
        throw new Error(`bench case ${id}: out of step`);
      return reply.samples;
    },
    close,
  };
}

/** The child's next message; rejects if it exits first. */
function nextMessage(child: ChildProcess, name: string): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`bench family ${name} exited with ${code}`));
    };
    const onMessage = (message: unknown) => {
      child.off('exit', onExit);
      resolve(message as FromChild);
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

/** In a child: samples the family's cases on request until told to exit; never returns. */
function serveFamily(
  cases: Record<string, Prepare>,
  served: string,
  options: MeasureOptions,
): Promise<never> {
  const send = (message: FromChild) => process.send!(message);
  const family = options.family;
  if (family === undefined || process.send === undefined) {
    throw new Error(`${FAMILY_VARIABLE} is set, but this phase measures in one process`);
  }
  const own = Object.keys(cases).filter((id) => family(id) === served);
  const failed = (id: string, error: unknown): FromChild => ({
    type: 'failed',
    id,
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.on('message', (message: ToChild) => {
    if (message.type === 'exit') process.exit(0);
    if (message.type === 'warmUp') {
      warmUp(cases, own, options).then(
        () => send({ type: 'warm' }),
        (error: unknown) => send(failed('warm-up', error)),
      );
      return;
    }
    if (family(message.id) !== served) {
      send({ type: 'failed', id: message.id, message: `not in family ${served}` });
      return;
    }
    sampleCase(message.id, cases[message.id]!).then(
      (samples) => send({ type: 'samples', id: message.id, samples }),
      (error: unknown) => send(failed(message.id, error)),
    );
  });
  send({ type: 'ready' });
  return new Promise<never>(() => undefined);
}

/**
 * The family of a case named `subject@size`: the subject, so every history size of one subject
 * shares a process, as they would in a service.
 */
export function subjectFamily(id: string): string {
  return id.split('@')[0]!;
}
