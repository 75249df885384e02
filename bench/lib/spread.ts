/** A figure measured over several rounds: its median and its spread (lowest and highest round). */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many rounds it was measured in. */
  runs: number;
}

/** The lower middle value when the count is even. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** Median and min-max of the values; null when there are none. */
export function spreadOf(xs: readonly number[]): Spread | null {
  if (xs.length === 0) return null;
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length };
}

/**
 * Round i of `a` combined with round i of `b`, for each round both were measured in: a ratio or a difference whose
 * spread is that of runs made back to back, not the sum of two runs' noise that a ratio of two medians carries.
 */
export function pairedSpread(a: readonly (number | null)[], b: readonly (number | null)[], combine: (a: number, b: number) => number): Spread | null {
  const values: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x !== null && y !== null) values.push(combine(x, y));
  }
  return spreadOf(values);
}
