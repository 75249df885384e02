/**
 * A client version (Claude Code writes `version` on every record, `2.1.39`) as numbers, to hold against the ranges in which
 * the client behaved a given way; undefined for text that is no such version.
 */
export function clientVersion(text: unknown): [number, number, number] | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Whether `version` lies in `[from, to]` (both included; `to` absent: no upper end). */
export function versionIn(version: unknown, from: string, to?: string): boolean {
  const v = clientVersion(version);
  const lo = clientVersion(from);
  const hi = to === undefined ? undefined : clientVersion(to);
  if (!v || !lo) return false;
  return compare(v, lo) >= 0 && (hi === undefined || compare(v, hi) <= 0);
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
