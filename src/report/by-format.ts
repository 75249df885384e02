import { type Breakdown, addBreakdown, emptyBreakdown } from '../tokens/breakdown.js';

/** One source format's part of an archive that mixes agents: the figures that compare agents with each other. */
export interface FormatFigures {
  transcripts: number;
  tokens: number;
  /** Model calls: assistant messages. */
  calls: number;
  toolCalls: number;
  /** Tokens per model call: what each reply of that agent's sessions carried on average. */
  tokensPerCall: number;
  /** Tool results in all of its tokens. */
  toolOutputShare: number;
  byCategory: Breakdown;
}

/** Sums transcripts by the format they were read as; `result()` is undefined unless two formats or more were seen. */
export class FormatTally {
  private readonly byFormat = new Map<string, Omit<FormatFigures, 'tokensPerCall' | 'toolOutputShare'>>();

  add(format: string | undefined, figures: { tokens: number; calls: number; toolCalls: number; byCategory: Readonly<Breakdown> }): void {
    const key = format ?? 'unknown';
    let f = this.byFormat.get(key);
    if (!f) this.byFormat.set(key, (f = { transcripts: 0, tokens: 0, calls: 0, toolCalls: 0, byCategory: emptyBreakdown() }));
    f.transcripts++;
    f.tokens += figures.tokens;
    f.calls += figures.calls;
    f.toolCalls += figures.toolCalls;
    addBreakdown(f.byCategory, figures.byCategory);
  }

  /** By format name, in name order; undefined for an archive of one format (its totals already say it all). */
  result(): Record<string, FormatFigures> | undefined {
    if (this.byFormat.size < 2) return undefined;
    const names = [...this.byFormat.keys()].sort();
    return Object.fromEntries(
      names.map((name) => {
        const f = this.byFormat.get(name)!;
        return [name, { ...f, tokensPerCall: f.calls > 0 ? f.tokens / f.calls : 0, toolOutputShare: f.tokens > 0 ? f.byCategory.toolResults / f.tokens : 0 }];
      }),
    );
  }
}

/** Groups any per-transcript figure by format; `result()` is undefined unless two formats or more were seen. */
export class FormatGroups<T> {
  private readonly groups = new Map<string, T>();

  constructor(private readonly empty: () => T) {}

  /** The group of a format, made on first use. */
  of(format: string | undefined): T {
    const key = format ?? 'unknown';
    let g = this.groups.get(key);
    if (g === undefined) this.groups.set(key, (g = this.empty()));
    return g;
  }

  result(): Record<string, T> | undefined {
    if (this.groups.size < 2) return undefined;
    return Object.fromEntries([...this.groups.keys()].sort().map((k) => [k, this.groups.get(k)!]));
  }
}
