/**
 * Per-transcript figures gathered by a key: the source format a transcript was read as, the project it belongs to.
 * `result()` gives the groups by key, in key order, and nothing unless the key splits the archive: two named keys or
 * more (for one, the totals already say it all). Transcripts without a key go to the `unnamed` group, listed last,
 * which does not count as a second key.
 */
export class Groups<T> {
  private readonly groups = new Map<string, T>();
  private unnamedGroup: T | undefined;

  constructor(
    private readonly empty: () => T,
    private readonly unnamed: string,
  ) {}

  /** The group of a key, made on first use. */
  of(key: string | undefined): T {
    if (key === undefined) return (this.unnamedGroup ??= this.empty());
    let g = this.groups.get(key);
    if (g === undefined) this.groups.set(key, (g = this.empty()));
    return g;
  }

  result(): Record<string, T> | undefined {
    if (this.groups.size < 2) return undefined;
    const out: Record<string, T> = {};
    for (const [key, group] of [...this.groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[key] = group;
    if (this.unnamedGroup !== undefined) out[this.unnamed] = this.unnamedGroup;
    return out;
  }
}

/** The group of transcripts whose source format is not known. */
export const UNKNOWN_FORMAT = 'unknown';

/** The group of transcripts that record no project (see transcriptProject). */
export const NO_PROJECT = '(no project)';

/** Groups by the source format a transcript was read as. */
export function formatGroups<T>(empty: () => T): Groups<T> {
  return new Groups(empty, UNKNOWN_FORMAT);
}

/** Groups by the project a transcript records (transcriptProject in src/model/project.ts). */
export function projectGroups<T>(empty: () => T): Groups<T> {
  return new Groups(empty, NO_PROJECT);
}
