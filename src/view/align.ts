import { type Message, isAssistant, isTool } from '../model/message.js';
import type { MessageFate } from '../refs/restore.js';
import { additionStrategy, callIds, changeStrategy, removalStrategy } from './attribute.js';
import { type Stub, newStubs, spanStub, textBesideStubs } from './stubs.js';

/**
 * What became of original messages, one row of the before/after view:
 * - `kept`: the same message, unchanged, at the same place; `moved`: unchanged, elsewhere in the order (sanitize
 *   moves a result after its call);
 * - `replaced`: one message whose content a placeholder stands for now (mask-observations, strip-tool-results,
 *   strip-attachments);
 * - `changed`: one message changed without a placeholder (reasoning stripped, calls removed);
 * - `merged`: messages one placeholder message stands for (checkpoint, summarize, truncate, classify-tangents);
 * - `removed`: a message gone with nothing in its place; `added`: a message with no original (sanitize's missing result).
 */
export type RowKind = 'kept' | 'moved' | 'replaced' | 'changed' | 'merged' | 'removed' | 'added';

export interface AlignedRow {
  kind: RowKind;
  /** Indexes of the original's messages, ascending (none for `added`). */
  before: number[];
  /** Indexes of the compacted transcript's messages (none for `removed`). */
  after: number[];
  /**
   * The strategy that did it, read from the placeholder when there is one, else from the change (see attribute.ts):
   * candidates joined with " or " when the output does not tell them apart. Undefined for kept rows and when unknown.
   */
  strategy?: string;
  /** Side-store refs of what went: those the placeholder names, else the ref the restore recipe stored the message under. */
  refs: string[];
  /** The placeholder text, for `replaced` (one per content part a placeholder took) and `merged`. */
  stubs: string[];
}

interface AlignInput {
  original: readonly Message[];
  compacted: readonly Message[];
  /** One per original message, from `restoreWithFates`. */
  fates: readonly MessageFate[];
  /** The run's steps, in order (report.json `settings.steps`): they narrow the strategies a change can be from. */
  steps: readonly string[];
  /** The side store: a span placeholder's record tells whether it replaced an earlier one (a checkpoint truncated). */
  lookup?: (ref: string) => string | undefined;
}

interface Anchor {
  i: number;
  j: number;
}

/** The longest run of kept messages in the same order on both sides (patience sorting); the others were moved. */
function inOrder(anchors: readonly Anchor[]): Set<Anchor> {
  const tails: number[] = [];
  const previous: number[] = new Array<number>(anchors.length).fill(-1);
  anchors.forEach((a, k) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (anchors[tails[mid]].j < a.j) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[k] = tails[lo - 1];
    tails[lo] = k;
  });
  const out = new Set<Anchor>();
  for (let k = tails.length > 0 ? tails[tails.length - 1] : -1; k >= 0; k = previous[k]) out.add(anchors[k]);
  return out;
}

/** Whether `after` can be `before` changed by a strategy that leaves no span placeholder. */
function sameMessage(before: Message, after: Message): boolean {
  if (before.role !== after.role) return false;
  if (isTool(before)) return isTool(after) && before.tool_call_id === after.tool_call_id;
  if (isAssistant(before) && isAssistant(after)) {
    const ids = new Set((before.tool_calls ?? []).map((c) => c.id));
    if ((after.tool_calls ?? []).some((c) => ids.has(c.id))) return true;
  }
  const text = textBesideStubs(after);
  // A message that was only an attachment is only its placeholder now.
  if (text === '') return textBesideStubs(before) === '' && newStubs(before, after).length > 0;
  return text === textBesideStubs(before);
}

/** The messages between two kept ones: the originals that did not survive and the compacted messages that are new. */
interface Gap {
  olds: number[];
  news: number[];
  /** Span placeholders among `news`, each with the originals it stands for. */
  spans: Map<number, number[]>;
  /** Originals paired one for one with a new message. */
  pairs: [number, number][];
  /** News with no original. */
  added: number[];
  /** Originals nothing in their stretch of the gap stands for. */
  unclaimed: number[];
}

/**
 * Pairs a gap's news with its originals, in order: a new message takes the first remaining original it can be; the
 * originals skipped on the way belong to the span placeholders among the news since the last pair, or to nobody.
 */
function pairGap(gap: Gap, original: readonly Message[], compacted: readonly Message[]): void {
  let p = 0;
  let skipped: number[] = [];
  let spans: number[] = [];
  const settle = () => {
    if (spans.length > 0) gap.spans.get(spans[0])?.push(...skipped);
    else gap.unclaimed.push(...skipped);
    skipped = [];
    spans = [];
  };
  for (const j of gap.news) {
    if (spanStub(compacted[j])) {
      gap.spans.set(j, []);
      spans.push(j);
      continue;
    }
    let k = p;
    while (k < gap.olds.length && !sameMessage(original[gap.olds[k]], compacted[j])) k++;
    if (k === gap.olds.length) {
      gap.added.push(j);
      continue;
    }
    skipped.push(...gap.olds.slice(p, k));
    settle();
    gap.pairs.push([gap.olds[k], j]);
    p = k + 1;
  }
  skipped.push(...gap.olds.slice(p));
  settle();
}

/** Splits the transcripts at the messages kept in order. */
function gapsOf(input: AlignInput, anchors: readonly Anchor[], keptTargets: ReadonlySet<number>): Gap[] {
  const bounds = [{ i: -1, j: -1 }, ...anchors, { i: input.original.length, j: input.compacted.length }];
  const gaps: Gap[] = [];
  for (let k = 1; k < bounds.length; k++) {
    const [a, b] = [bounds[k - 1], bounds[k]];
    const gap: Gap = { olds: [], news: [], spans: new Map(), pairs: [], added: [], unclaimed: [] };
    for (let i = a.i + 1; i < b.i; i++) if ('stored' in input.fates[i]) gap.olds.push(i);
    for (let j = a.j + 1; j < b.j; j++) if (!keptTargets.has(j)) gap.news.push(j);
    gaps.push(gap);
  }
  return gaps;
}

/**
 * A summarizer that leaves the last request in place replaces the messages on both sides of it with one placeholder
 * after it: originals left unclaimed in the gap just before (one kept message between) belong to that placeholder.
 */
function claimAcrossOneKept(gaps: readonly Gap[]): void {
  for (let k = 0; k + 1 < gaps.length; k++) {
    const [gap, next] = [gaps[k], gaps[k + 1]];
    if (gap.unclaimed.length === 0 || gap.spans.size > 0 || next.spans.size === 0) continue;
    const [first] = next.spans.keys();
    next.spans.get(first)?.unshift(...gap.unclaimed);
    gap.unclaimed = [];
  }
}

const storedRef = (fate: MessageFate): string[] => ('stored' in fate ? [fate.stored] : []);

/** The span placeholder's strategy, after those of the span placeholders among the messages it replaced (its record). */
function spanStrategies(stub: Stub, lookup: AlignInput['lookup']): string {
  const record = stub.refs.length > 0 ? lookup?.(stub.refs[0]) : undefined;
  const inner = new Set<string>();
  try {
    const messages: unknown = record === undefined ? undefined : JSON.parse(record);
    if (Array.isArray(messages)) {
      for (const m of messages) {
        const nested = m !== null && typeof m === 'object' && typeof (m as Message).role === 'string' ? spanStub(m as Message) : undefined;
        if (nested) inner.add(nested.strategy);
      }
    }
  } catch {
    // Not a record of messages: the placeholder's own strategy is all there is to say.
  }
  return [...inner, stub.strategy].join(' + ');
}

/**
 * The rows of the before/after view, in the original's order (a row with no original where its compacted message
 * stands). Exact where the output says it: kept messages come from the restore recipes, and placeholders name their
 * strategy and ref; the other changes are paired by role, call ids and text, in order.
 */
export function alignMessages(input: AlignInput): AlignedRow[] {
  const { original, compacted, fates, steps } = input;
  const anchors: Anchor[] = [];
  fates.forEach((f, i) => {
    if ('kept' in f) anchors.push({ i, j: f.kept });
  });
  const ordered = inOrder(anchors);
  const gaps = gapsOf(
    input,
    anchors.filter((a) => ordered.has(a)),
    new Set(anchors.map((a) => a.j)),
  );
  for (const gap of gaps) pairGap(gap, original, compacted);
  claimAcrossOneKept(gaps);

  const calls = { original: callIds(original), compacted: callIds(compacted) };
  const rows: AlignedRow[] = anchors.map((a) =>
    ordered.has(a)
      ? { kind: 'kept', before: [a.i], after: [a.j], refs: [], stubs: [] }
      : { kind: 'moved', before: [a.i], after: [a.j], strategy: 'sanitize', refs: [], stubs: [] },
  );
  for (const gap of gaps) {
    for (const [i, j] of gap.pairs) {
      const stubs = newStubs(original[i], compacted[j]);
      if (stubs.length > 0) {
        const strategy = [...new Set(stubs.map((s) => s.strategy))].join(' + ');
        rows.push({ kind: 'replaced', before: [i], after: [j], strategy, refs: stubs.flatMap((s) => s.refs), stubs: stubs.map((s) => s.text) });
      } else {
        const strategy = changeStrategy(original[i], compacted[j], steps);
        rows.push({ kind: 'changed', before: [i], after: [j], ...(strategy && { strategy }), refs: storedRef(fates[i]), stubs: [] });
      }
    }
    for (const [j, olds] of gap.spans) {
      const stub = spanStub(compacted[j]) as Stub;
      rows.push({
        kind: 'merged',
        before: olds.sort((x, y) => x - y),
        after: [j],
        strategy: spanStrategies(stub, input.lookup),
        refs: stub.refs,
        stubs: [stub.text],
      });
    }
    for (const i of gap.unclaimed) {
      const strategy = removalStrategy(original[i], calls, steps);
      rows.push({ kind: 'removed', before: [i], after: [], ...(strategy && { strategy }), refs: storedRef(fates[i]), stubs: [] });
    }
    for (const j of gap.added) {
      const strategy = additionStrategy(compacted[j]);
      rows.push({ kind: 'added', before: [], after: [j], ...(strategy && { strategy }), refs: [], stubs: [] });
    }
  }
  return inOriginalOrder(rows, compacted.length);
}

/**
 * Rows sorted by their first original; a row with none goes right after the row of the compacted message before it
 * (ties keep the compacted order).
 */
function inOriginalOrder(rows: AlignedRow[], compactedLength: number): AlignedRow[] {
  const keyOf = new Map<AlignedRow, number>();
  const rowAt = new Array<AlignedRow | undefined>(compactedLength);
  for (const r of rows) {
    if (r.before.length > 0) keyOf.set(r, r.before[0]);
    for (const j of r.after) rowAt[j] = r;
  }
  let last = -0.5;
  for (let j = 0; j < compactedLength; j++) {
    const r = rowAt[j];
    if (!r) continue;
    if (!keyOf.has(r)) keyOf.set(r, last + 0.5 / (compactedLength + 1));
    last = keyOf.get(r) as number;
  }
  const firstAfter = (r: AlignedRow) => r.after[0] ?? -1;
  return rows.sort((a, b) => (keyOf.get(a) as number) - (keyOf.get(b) as number) || firstAfter(a) - firstAfter(b));
}
