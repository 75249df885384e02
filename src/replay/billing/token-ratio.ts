import type { Message } from '../../model/message.js';
import { callThread, followsResume, historyMessage, holdsUnloggedContent, isSourceSummary } from '../../model/recorded.js';
import type { Transcript } from '../../model/transcript.js';
import { countMessage, totalOf } from '../../tokens/breakdown.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { median, quantile } from './quantile.js';
import { recordedPromptTokens } from './recorded-usage.js';

/**
 * How a provider counts a transcript's text against our tokenizer: `ratio` of its tokens per token of ours, plus
 * `framing` tokens around each piece of text we count (a message's text, a tool call's name, its arguments): the
 * provider wraps each content block in its own format (ids, types, tags), which no text holds.
 */
export interface TokenScale {
  ratio: number;
  framing: number;
}

/** A transcript's scale as measured on its record (see {@link measureTokenScale}). */
export interface TokenScaleMeasure extends TokenScale {
  /** Intervals between two recorded calls it was measured on. */
  intervals: number;
  /** Intervals left out: after a compaction, holding content the log lacks, or far from the fit. */
  skipped: number;
  /** The first and third quartiles of the intervals' own ratios (their growth less framing, over their text). */
  spread: [number, number];
}

/** The scale a transcript's replay counts with: its own, or the archive's when its record has too few clean intervals. */
export interface RecordedTokenScale extends TokenScaleMeasure {
  fellBack: boolean;
}

/** Fewer clean intervals than this and a transcript's own measure is not used. */
export const MIN_CLEAN_INTERVALS = 5;

/** An interval whose recorded growth is more than this many times the fit's (or less than its inverse) is left out. */
const FAR_FROM_FIT = 2;

/** At most this many intervals enter the pairwise slopes (evenly spaced): their number grows with its square. */
const MAX_SLOPE_POINTS = 600;

/** What came between two recorded calls. */
interface Interval {
  /** Index of the last message before the call that closes it. */
  last: number;
  /** Index of the reply whose recorded call closes it. */
  call: number;
  /** Recorded prompt growth, in the provider's tokens. */
  growth: number;
  /** The messages' text, counted by our tokenizer, without the per-message overhead. */
  text: number;
  /** Our per-message overhead of those messages, which no scale changes. */
  overhead: number;
  /** Pieces of text counted (each one framed by the provider). */
  pieces: number;
  /** The record says the prompt lost or gained something the messages do not show: a compaction, unlogged content. */
  unclean: boolean;
  /** A source compaction summary came in it: what the prompt grew by is not what the messages add. */
  compaction: boolean;
}

/**
 * The provider's tokens for our count, measured on a transcript's record: between two recorded calls the prompt
 * grows by the messages that came between them, each piece of their text counted `ratio` times ours plus `framing`.
 *
 * Intervals whose growth is not the messages between them are left out: a call whose input shrank or that follows a
 * compaction summary (the source's own compaction) or a resume that rebuilt the prompt (`followsResume`), and intervals that hold content the log does not (thinking logged
 * without its text, tool definitions a tool search loaded, blocks with no canonical equivalent: see
 * `holdsUnloggedContent`). On the rest, `ratio` is the Theil–Sen slope of growth against text, both per piece (the
 * median of the pairwise slopes): an interval that grew by something the log does not show moves it by its rank, not
 * its size. Intervals whose growth is then more than twice, or less than half, the fit's are left out too (the growth
 * far above the text: a reminder the client added, a cache quirk), the slope is taken again, and `framing` is what the
 * remaining intervals grew beyond `ratio` times their text, per piece, so that the fit's growth over them is theirs.
 *
 * Why not a ratio alone: each interval carries a fixed framing (40 to 85 provider tokens per message on the shared
 * corpus's Claude Code sessions), so a median of per-interval ratios is pulled up by short intervals (a short tool
 * result reads 2 to 7 times its text), a median weighted by text falls to the long ones' ratio and leaves the framing
 * out of the bill, and a pooled ratio (all growth over all text) takes every unlogged load in full.
 *
 * Undefined with fewer than {@link MIN_CLEAN_INTERVALS} clean intervals.
 */
export function measureTokenScale(transcript: Transcript, tokenizer: Tokenizer): TokenScaleMeasure | undefined {
  const all = intervalsOf(transcript.messages, tokenizer);
  const candidates = all.filter((i) => !i.unclean && i.growth > i.overhead && i.text > 0 && i.pieces > 0);
  if (candidates.length < MIN_CLEAN_INTERVALS) return undefined;
  const first = theilSen(candidates);
  if (!first) return undefined;
  const near = candidates.filter((i) => {
    const predicted = first.ratio * i.text + first.framing * i.pieces;
    const grown = i.growth - i.overhead;
    return grown <= FAR_FROM_FIT * predicted && grown * FAR_FROM_FIT >= predicted;
  });
  if (near.length < MIN_CLEAN_INTERVALS) return undefined;
  const fit = theilSen(near);
  if (!fit) return undefined;
  const scale = { ratio: fit.ratio, framing: pooledFraming(near, fit.ratio) };
  const ratios = near.map((i) => (i.growth - i.overhead - scale.framing * i.pieces) / i.text).sort((a, b) => a - b);
  return { ...scale, intervals: near.length, skipped: all.length - near.length, spread: [quantile(ratios, 0.25), quantile(ratios, 0.75)] };
}

/**
 * The framing that makes the fit's growth over `intervals` their recorded growth: what they grew beyond `ratio` times
 * their text, per piece. Beside the format's framing it carries the small additions a client makes all along (system
 * reminders), which are billed too; the intervals far from the fit are already left out.
 */
function pooledFraming(intervals: readonly Interval[], ratio: number): number {
  let beyond = 0;
  let pieces = 0;
  for (const i of intervals) {
    beyond += i.growth - i.overhead - ratio * i.text;
    pieces += i.pieces;
  }
  return Math.max(0, beyond / pieces);
}

/**
 * Each interval between two recorded calls whose input differs (records of one response carry the same input). A call
 * that recorded no input (Claude Code's synthetic replies log all-zero usage) is no measure of the prompt: growth is
 * never measured from or to it. Messages count as later prompts hold them (see `historyMessage`).
 */
function intervalsOf(messages: readonly Message[], tokenizer: Tokenizer): Interval[] {
  const out: Interval[] = [];
  const pieceCounter = piecesTokenizer(tokenizer);
  let anchor: number | undefined;
  let anchorThread = 0;
  const empty = (): Omit<Interval, 'growth'> => ({ last: -1, call: -1, text: 0, overhead: 0, pieces: 0, unclean: false, compaction: false });
  let open = empty();
  for (const [index, original] of messages.entries()) {
    const recorded = original.role === 'assistant' ? recordedPromptTokens(original) : undefined;
    if (recorded !== undefined && recorded > 0 && recorded !== anchor) {
      // Across a switch between the branches of a forked session, the input does not grow from the other branch's.
      const switched = callThread(original) !== anchorThread;
      if (anchor !== undefined)
        out.push({
          growth: recorded - anchor,
          ...open,
          last: index - 1,
          call: index,
          unclean: open.unclean || recorded < anchor || switched,
          compaction: open.compaction || switched,
        });
      anchor = recorded;
      anchorThread = callThread(original);
      open = empty();
    }
    if (anchor === undefined) continue;
    // A resume rebuilt the prompt from the chain: what it left out is gone, as at a compaction.
    if (followsResume(original)) {
      open.unclean = true;
      open.compaction = true;
    }
    if (isSourceSummary(original)) {
      open.unclean = true;
      open.compaction = true;
      continue;
    }
    const m = historyMessage(original);
    if (m === undefined) continue;
    const b = countMessage(m, tokenizer);
    open.text += totalOf(b) - b.overhead;
    open.overhead += b.overhead;
    const p = countMessage(m, pieceCounter);
    open.pieces += totalOf(p) - p.overhead;
    if (holdsUnloggedContent(m)) open.unclean = true;
  }
  return out;
}

/** An interval's recorded growth beyond what `scale` makes of its messages (negative: below it). */
const beyondFit = (i: Interval, scale: TokenScale) => i.growth - i.overhead - (scale.ratio * i.text + scale.framing * i.pieces);

/**
 * Unlogged content: tokens the provider had with the message at `at` that the transcript does not hold, in the prompts
 * of the calls from the reply at index `from` up to, not including, the one at `until` (absent: every later call).
 */
export interface UnloggedSpan {
  at: number;
  tokens: number;
  from: number;
  until?: number;
}

/**
 * What the provider had that the log does not hold, for as long as the record shows it, one rule for every agent.
 *
 * It appears where an interval holds unlogged content (see `holdsUnloggedContent`) or grew more than twice what
 * `scale` makes of its messages (a reminder the client added, plan-mode instructions, a tool round trip the log lacks):
 * it grew by that much more, and the span starts with the last message before the call whose input shows it. It is
 * carried only while later records keep showing it: an interval that grew by less than half what its messages make
 * (or shrank) gives back what it lacks, taken from the latest spans first, which end at that call (one taken back in
 * part goes on with the rest). So a one-off jump the next calls' recorded input takes back is billed once, not in every
 * later prompt. Compaction intervals are not counted: what a compaction leaves is the source's. Growth is never
 * measured from a call that recorded no input (see `intervalsOf`). A replay that adds these tokens to their messages
 * bills what the provider was sent; the measure of `scale` leaves the same intervals out, so nothing counts twice.
 */
export function unloggedGrowth(transcript: Transcript, tokenizer: Tokenizer, scale: TokenScale): UnloggedSpan[] {
  const spans: UnloggedSpan[] = [];
  let open: UnloggedSpan[] = [];
  for (const i of intervalsOf(transcript.messages, tokenizer)) {
    if (i.compaction || i.last < 0) continue;
    const beyond = beyondFit(i, scale);
    const predicted = i.growth - i.overhead - beyond;
    const grown = i.growth - i.overhead;
    if (i.growth > 0 && beyond > 0 && (i.unclean || grown > FAR_FROM_FIT * predicted)) {
      const span = { at: i.last, tokens: Math.round(beyond), from: i.last + 1 };
      spans.push(span);
      open.push(span);
    } else if (beyond < 0 && open.length > 0 && grown * FAR_FROM_FIT < predicted) {
      open = takeBack(open, -beyond, i.call, spans);
    }
  }
  return spans.filter((s) => s.tokens > 0);
}

/** Ends the latest open spans that `lacking` tokens take back at the call `call`; returns the spans still open. */
function takeBack(open: UnloggedSpan[], lacking: number, call: number, spans: UnloggedSpan[]): UnloggedSpan[] {
  let left = Math.round(lacking);
  const still = [...open];
  while (left > 0 && still.length > 0) {
    const span = still.pop() as UnloggedSpan;
    span.until = call;
    if (span.tokens > left) {
      const rest = { at: span.at, tokens: span.tokens - left, from: call };
      spans.push(rest);
      still.push(rest);
      left = 0;
    } else left -= span.tokens;
  }
  return still;
}

/** Tokens of unlogged content the replay bills: each span's tokens in every call it lasts. */
export function unloggedBilled(transcript: Transcript, spans: readonly UnloggedSpan[]): number {
  const calls: number[] = [];
  for (const [index, m] of transcript.messages.entries()) if (m.role === 'assistant' && !isSourceSummary(m)) calls.push(index);
  let billed = 0;
  for (const s of spans) billed += s.tokens * calls.filter((c) => c >= s.from && (s.until === undefined || c < s.until)).length;
  return billed;
}

/** A tokenizer that counts 1 for every non-empty piece of text: the number of pieces a message's count adds up. */
const pieceCounters = new WeakMap<Tokenizer, Tokenizer>();
function piecesTokenizer(tokenizer: Tokenizer): Tokenizer {
  let counter = pieceCounters.get(tokenizer);
  if (!counter) pieceCounters.set(tokenizer, (counter = { name: tokenizer.name, engine: tokenizer.engine, count: (text: string) => (text === '' ? 0 : 1) }));
  return counter;
}

/**
 * Theil–Sen fit of growth per piece against text per piece: `ratio` is the median of the pairwise slopes, `framing`
 * the median intercept (never below 0). Undefined when no two intervals differ in text per piece or the slope is not
 * positive.
 */
function theilSen(intervals: readonly Interval[]): TokenScale | undefined {
  const step = Math.max(1, intervals.length / MAX_SLOPE_POINTS);
  const points: { x: number; y: number }[] = [];
  for (let k = 0; k < intervals.length; k += step) {
    const i = intervals[Math.floor(k)];
    points.push({ x: i.text / i.pieces, y: (i.growth - i.overhead) / i.pieces });
  }
  const slopes: number[] = [];
  for (let a = 0; a < points.length; a++) {
    for (let b = a + 1; b < points.length; b++) {
      if (points[a].x !== points[b].x) slopes.push((points[b].y - points[a].y) / (points[b].x - points[a].x));
    }
  }
  if (slopes.length === 0) return undefined;
  const ratio = quantile(
    slopes.sort((a, b) => a - b),
    0.5,
  );
  if (!(ratio > 0)) return undefined;
  const intercepts = intervals.map((i) => (i.growth - i.overhead - ratio * i.text) / i.pieces).sort((a, b) => a - b);
  return { ratio, framing: Math.max(0, quantile(intercepts, 0.5)) };
}

/**
 * The archive's scale, for transcripts whose record has too few clean intervals: the medians of the ratios and of the
 * framings measured on the others, taken in a first pass over the archive.
 */
export class ArchiveTokenScale {
  private readonly ratios: number[] = [];
  private readonly framings: number[] = [];

  add(measure: TokenScaleMeasure | undefined): void {
    if (!measure) return;
    this.ratios.push(measure.ratio);
    this.framings.push(measure.framing);
  }

  /** Undefined when no transcript had enough clean intervals. */
  median(): TokenScale | undefined {
    if (this.ratios.length === 0) return undefined;
    return { ratio: median(this.ratios), framing: median(this.framings) };
  }
}

/**
 * A transcript's scale: its own measure, else `fallback` (the archive's), else none (ratio 1, framing 0). Undefined
 * only when neither the transcript nor the archive gives one.
 */
export function recordedTokenScale(transcript: Transcript, tokenizer: Tokenizer, fallback: TokenScale | undefined): RecordedTokenScale | undefined {
  const own = measureTokenScale(transcript, tokenizer);
  if (own) return { ...own, fellBack: false };
  if (!fallback) return undefined;
  const intervals = intervalsOf(transcript.messages, tokenizer).length;
  return { ...fallback, intervals: 0, skipped: intervals, spread: [fallback.ratio, fallback.ratio], fellBack: true };
}

/** Whether a `tokenRatio` setting scales the counts at all: 1, the default, does not, and reports leave it out. */
export function scalesCounts(ratio: number | 'recorded' | undefined): ratio is number | 'recorded' {
  return ratio !== undefined && ratio !== 1;
}

/** A transcript's counter in its provider's tokens (`tokenRatio`): with `recorded`, the scale it was measured at. */
export interface ProviderCounter {
  scale: RecordedTokenScale | undefined;
  ratio: number;
  tokenizer: Tokenizer;
}

/**
 * `transcript`'s counter under `tokenRatio`: a number for every transcript, or with `recorded` its own scale, else the
 * archive's (`tokenScaleFallback`), else the tokenizer as it is.
 */
export function providerCounter(
  transcript: Transcript,
  tokenizer: Tokenizer,
  o: { tokenRatio: number | 'recorded'; tokenScaleFallback?: TokenScale },
): ProviderCounter {
  const scale = o.tokenRatio === 'recorded' ? recordedTokenScale(transcript, tokenizer, o.tokenScaleFallback) : undefined;
  const ratio = o.tokenRatio === 'recorded' ? (scale?.ratio ?? 1) : o.tokenRatio;
  const framing = scale?.framing ?? 0;
  return { scale, ratio, tokenizer: ratio === 1 && framing === 0 ? tokenizer : scaledTokenizer(tokenizer, ratio, framing) };
}

/**
 * `tokenizer` counting in the provider's tokens: every non-empty piece of text `ratio` times ours plus `framing`,
 * rounded. The replay then counts in the provider's tokens, and so do the policies' thresholds, as they would in the
 * provider's context window.
 */
export function scaledTokenizer(tokenizer: Tokenizer, ratio: number, framing = 0): Tokenizer {
  return {
    name: tokenizer.name,
    engine: tokenizer.engine,
    count: (text: string) => (text === '' ? 0 : Math.round(tokenizer.count(text) * ratio + framing)),
  };
}
