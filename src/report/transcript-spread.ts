import { type WindowStatus, windowStatus } from '../tokens/window.js';

export const WINDOW_STATUSES: readonly WindowStatus[] = ['ok', 'warning', 'over_compaction_threshold', 'over_hard_limit'];
/** Bins of the compression histogram: the share of a transcript's tokens saved, in steps of 5 points. */
export const COMPRESSION_BINS = 20;
/** Transcripts listed in `largest`. */
export const LARGEST_KEPT = 20;

interface SizedTranscript {
  id: string;
  file: string;
  line: number;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * How transcripts are spread, in a size that does not grow with the archive: how many transcripts saved each share
 * of their tokens, how many sit in each context-window tier before and after, and the largest ones.
 */
export interface TranscriptSpread {
  window: number;
  /** compression[i]: transcripts that saved at least 5·i% and less than 5·(i+1)% of their tokens (the last bin holds 100%). */
  compression: number[];
  tiers: { before: Record<WindowStatus, number>; after: Record<WindowStatus, number> };
  /** The LARGEST_KEPT largest by tokens before, largest first; of equal sizes the earlier in input order. */
  largest: SizedTranscript[];
}

const emptyTiers = (): Record<WindowStatus, number> => ({ ok: 0, warning: 0, over_compaction_threshold: 0, over_hard_limit: 0 });

export function emptySpread(window: number): TranscriptSpread {
  return { window, compression: new Array<number>(COMPRESSION_BINS).fill(0), tiers: { before: emptyTiers(), after: emptyTiers() }, largest: [] };
}

/** Adds one transcript, in input order (the order decides ties in `largest`). */
export function addToSpread(spread: TranscriptSpread, t: SizedTranscript): void {
  const saved = t.tokensBefore > 0 ? Math.max(0, (t.tokensBefore - t.tokensAfter) / t.tokensBefore) : 0;
  spread.compression[Math.min(COMPRESSION_BINS - 1, Math.floor(saved * COMPRESSION_BINS))]++;
  spread.tiers.before[windowStatus(t.tokensBefore, spread.window)]++;
  spread.tiers.after[windowStatus(t.tokensAfter, spread.window)]++;
  const largest = spread.largest;
  if (largest.length === LARGEST_KEPT && largest[LARGEST_KEPT - 1].tokensBefore >= t.tokensBefore) return;
  let at = largest.length;
  while (at > 0 && largest[at - 1].tokensBefore < t.tokensBefore) at--;
  largest.splice(at, 0, { id: t.id, file: t.file, line: t.line, tokensBefore: t.tokensBefore, tokensAfter: t.tokensAfter });
  if (largest.length > LARGEST_KEPT) largest.pop();
}
