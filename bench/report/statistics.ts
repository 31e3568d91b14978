/** Distributions of repeated measurements: median and range, and ratios paired per round. */

/** A distribution: its median, its range and the samples themselves, in round order. */
export interface Stats {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1
      ? sorted[middle]!
      : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
  return {
    median,
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    samples: [...samples],
  };
}

/** Per-round ratios `numerator / denominator` (samples of the same round are paired). */
export function pairedRatio(numerator: readonly number[], denominator: readonly number[]): Stats {
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(numerator.length, denominator.length); index++) {
    ratios.push(numerator[index]! / denominator[index]!);
  }
  return stats(ratios);
}
