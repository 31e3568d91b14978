/**
 * The timing harness. The machine is shared and noisy, so every figure is a distribution: the
 * subjects of one comparison are sampled in interleaved rounds (round r samples every subject
 * once, in a rotating order), so a burst of load from a neighbour hits all of them alike, and each
 * subject's figure is the median of its rounds with the min–max beside it. Ratios are taken per
 * round, between samples taken moments apart, and reported the same way.
 *
 * Time is the process's CPU time (`process.cpuUsage`, user + system, GC threads included), not
 * wall time: on a shared machine a neighbour's time slice stretches wall time but not the work
 * done. Wall time is kept too, in results.json.
 */

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

/** A distribution of nanoseconds per operation. */
export interface Stats {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export interface MeasureOptions {
  /** Rounds that count. */
  rounds: number;
  /** Rounds run first and thrown away (JIT warm-up). */
  warmup: number;
  /** Called after each round (progress on stderr). */
  onRound?: (round: number) => void;
}

export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1
      ? sorted[middle]!
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return {
    median,
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    samples: [...samples],
  };
}

/** Collects garbage when the process runs with --expose-gc, so one sample's garbage is not swept in the next. */
export function collectGarbage(): void {
  globalThis.gc?.();
}

/** Idle time after the GC that precedes each sample. */
const SETTLE_MS = 5;

/** ns per operation of each counted round, as CPU time and as wall time. */
export interface Series {
  cpu: number[];
  wall: number[];
}

/**
 * Samples every case in interleaved rounds. Returns, per `case/block` key, the ns per operation
 * of each counted round.
 */
export async function measureInterleaved(
  cases: Record<string, Prepare>,
  options: MeasureOptions,
): Promise<Map<string, Series>> {
  const ids = Object.keys(cases);
  const series = new Map<string, Series>();
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    const counted = round >= options.warmup;
    for (let index = 0; index < ids.length; index++) {
      const id = ids[(index + round) % ids.length]!;
      const blocks = await cases[id]!();
      for (const block of blocks) {
        // Each timed block starts on a clean heap, once V8's helper threads (which sweep after a
        // full GC) are done: garbage made before the block is not collected on its time.
        if (block.timed !== false) {
          collectGarbage();
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        }
        const cpuBefore = process.cpuUsage();
        const started = process.hrtime.bigint();
        await block.run();
        const wall = Number(process.hrtime.bigint() - started);
        const cpuUsed = process.cpuUsage(cpuBefore);
        const cpu = (cpuUsed.user + cpuUsed.system) * 1000;
        if (!counted || block.timed === false) continue;
        const key = block.name === '' ? id : `${id}/${block.name}`;
        let values = series.get(key);
        if (values === undefined) series.set(key, (values = { cpu: [], wall: [] }));
        values.cpu.push(cpu / block.ops);
        values.wall.push(wall / block.ops);
      }
    }
    if (counted) options.onRound?.(round - options.warmup + 1);
  }
  return series;
}

/** Per-round ratios `numerator / denominator` (samples of the same round are paired). */
export function pairedRatio(numerator: readonly number[], denominator: readonly number[]): Stats {
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(numerator.length, denominator.length); index++) {
    ratios.push(numerator[index]! / denominator[index]!);
  }
  return stats(ratios);
}

/** Repeats an op `count` times as one timed block. */
export function repeat(name: string, count: number, op: () => void): Block {
  return {
    name,
    ops: count,
    run: () => {
      for (let index = 0; index < count; index++) op();
    },
  };
}

/**
 * Applies `op` to every subject once, as one block. The count is read when the block has run, so
 * a block may take a list the blocks before it fill.
 */
export function each<T>(
  name: string,
  subjects: readonly T[],
  op: (subject: T) => void,
  timed = true,
): Block {
  return {
    name,
    get ops() {
      return subjects.length;
    },
    timed,
    run: () => {
      for (const subject of subjects) op(subject);
    },
  };
}
