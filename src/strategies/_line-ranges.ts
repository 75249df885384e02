import type { RangeRule } from './tool-hints.js';

/** Lines [start, end] of a file, 1-based and inclusive; `end` is Infinity for a read to the end of the file. */
export interface LineRange {
  start: number;
  end: number;
}

/** One ranged read in a group of reads of the same path that nothing modified in between. */
export interface RangedRead extends LineRange {
  /** Order of the call in the transcript; a read is only ever covered by a later one. */
  seq: number;
  /** False when the read failed or has no result: it covers nothing. */
  canCover: boolean;
}

export function rangeContains(outer: LineRange, inner: LineRange): boolean {
  return outer.start <= inner.start && outer.end >= inner.end;
}

function lineNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

/**
 * The lines a call reads, by the tool's range rule. Missing start means line 1; missing end and length mean the end of
 * the file. Undefined when an argument is present but not a usable line number (e.g. `end_line: -1`): such a call
 * takes part only in identical-argument dedup, never in coverage.
 */
export function readRange(args: Readonly<Record<string, unknown>>, rule: RangeRule): LineRange | undefined {
  const rawStart = rule.start === undefined ? undefined : args[rule.start];
  let start = 1;
  if (rawStart !== undefined && rawStart !== null) {
    const n = lineNumber(rawStart);
    if (n === undefined || n < 0) return undefined;
    // Offset 0 is how some clients say "from the top".
    start = Math.max(1, n);
  }
  const rawEnd = rule.end === undefined ? undefined : args[rule.end];
  if (rawEnd !== undefined && rawEnd !== null) {
    const end = lineNumber(rawEnd);
    return end === undefined || end < start ? undefined : { start, end };
  }
  const rawLength = rule.length === undefined ? undefined : args[rule.length];
  if (rawLength !== undefined && rawLength !== null) {
    const length = lineNumber(rawLength);
    return length === undefined || length < 1 ? undefined : { start, end: start + length - 1 };
  }
  return { start, end: Infinity };
}

/**
 * Reads covered by a later read that can cover (its range contains theirs), in O(n log n): sort by start, sweep, and
 * keep in a Fenwick tree over the (compressed) ends the latest `seq` among the reads seen so far, so "is there a later
 * read, starting at or before mine, ending at or after mine" is one suffix-maximum query.
 */
export function coveredBySweep(reads: readonly RangedRead[]): Set<number> {
  const covered = new Set<number>();
  if (reads.length < 2) return covered;
  const ends = [...new Set(reads.map((r) => r.end))].sort((a, b) => a - b);
  const rank = new Map(ends.map((e, i) => [e, i]));
  // Fenwick tree over reversed end ranks: a prefix in reversed order is a suffix of ends (every end >= a given end).
  const tree = new Array<number>(ends.length + 1).fill(-1);
  const insert = (end: number, seq: number) => {
    for (let i = ends.length - (rank.get(end) as number); i <= ends.length; i += i & -i) if (tree[i] < seq) tree[i] = seq;
  };
  const latestEndingAtOrAfter = (end: number) => {
    let best = -1;
    for (let i = ends.length - (rank.get(end) as number); i > 0; i -= i & -i) if (tree[i] > best) best = tree[i];
    return best;
  };
  const byStart = [...reads].sort((a, b) => a.start - b.start);
  for (let i = 0; i < byStart.length;) {
    let j = i;
    while (j < byStart.length && byStart[j].start === byStart[i].start) j++;
    for (let k = i; k < j; k++) if (byStart[k].canCover) insert(byStart[k].end, byStart[k].seq);
    for (let k = i; k < j; k++) if (latestEndingAtOrAfter(byStart[k].end) > byStart[k].seq) covered.add(byStart[k].seq);
    i = j;
  }
  return covered;
}

/**
 * The same question answered pair by pair, in O(n^2): for rules that are only a predicate (`subsumes(earlier, later)`
 * registered from the library API), and as the reference the sweep is tested against.
 */
export function coveredPairwise<T extends { seq: number; canCover: boolean }>(items: readonly T[], subsumes: (earlier: T, later: T) => boolean): Set<number> {
  const covered = new Set<number>();
  for (const earlier of items) {
    for (const later of items) {
      if (later.seq > earlier.seq && later.canCover && subsumes(earlier, later)) {
        covered.add(earlier.seq);
        break;
      }
    }
  }
  return covered;
}
