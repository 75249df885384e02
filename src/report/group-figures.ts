import { type Breakdown, addBreakdown, emptyBreakdown } from '../tokens/breakdown.js';
import type { Groups } from './groups.js';

/** One group's part of an archive (an agent's sessions, a project's): the figures that compare groups with each other. */
export interface GroupFigures {
  transcripts: number;
  tokens: number;
  /** Model calls: assistant messages but synthetic replies. */
  calls: number;
  toolCalls: number;
  /** Tokens per model call: what each reply of the group's sessions carried on average. */
  tokensPerCall: number;
  /** Tool results in all of its tokens. */
  toolOutputShare: number;
  byCategory: Breakdown;
}

type Sums = Omit<GroupFigures, 'tokensPerCall' | 'toolOutputShare'>;

/** Sums transcripts' figures by a key (see Groups); `result()` is undefined unless two named keys or more were seen. */
export class FigureGroups {
  private readonly groups: Groups<Sums>;

  /** `groups`: formatGroups or projectGroups, making empty sums. */
  constructor(groups: (empty: () => Sums) => Groups<Sums>) {
    this.groups = groups(() => ({ transcripts: 0, tokens: 0, calls: 0, toolCalls: 0, byCategory: emptyBreakdown() }));
  }

  add(key: string | undefined, figures: { tokens: number; calls: number; toolCalls: number; byCategory: Readonly<Breakdown> }): void {
    const f = this.groups.of(key);
    f.transcripts++;
    f.tokens += figures.tokens;
    f.calls += figures.calls;
    f.toolCalls += figures.toolCalls;
    addBreakdown(f.byCategory, figures.byCategory);
  }

  result(): Record<string, GroupFigures> | undefined {
    const sums = this.groups.result();
    if (sums === undefined) return undefined;
    return Object.fromEntries(
      Object.entries(sums).map(([name, f]) => [
        name,
        { ...f, tokensPerCall: f.calls > 0 ? f.tokens / f.calls : 0, toolOutputShare: f.tokens > 0 ? f.byCategory.toolResults / f.tokens : 0 },
      ]),
    );
  }
}
