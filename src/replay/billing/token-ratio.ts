import type { Transcript } from '../../model/transcript.js';
import { countMessage, totalOf } from '../../tokens/breakdown.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { recordedPromptTokens } from './recorded-usage.js';
import { isSourceSummary } from '../../model/recorded.js';

/** What a transcript's recording says of how its provider's tokenizer counts against ours. */
export interface RecordedTokenRatio {
  /** The provider's tokens per token of ours: `providerTokens / ourTokens`. */
  ratio: number;
  /** The recorded prompt growth the ratio was measured on, in the provider's tokens. */
  providerTokens: number;
  /** The same messages' text, counted by our tokenizer (without the per-message overhead, which no scale changes). */
  ourTokens: number;
}

/**
 * The provider's tokens per token of ours, measured on the transcript's own record: between two recorded calls the
 * prompt grows by exactly the messages that came between them, so the growth of the recorded input (the provider's
 * count) over the same messages counted by `tokenizer` is the ratio of the two tokenizers on this transcript's text.
 * Claude's tokenizer, which no local library reproduces, counts 1.2–1.7 times o200k on the shared corpus's Claude Code sessions.
 *
 * Only growth is measured: a call whose recorded input shrank follows a compaction (the source's own), and the next
 * growth is taken from there. Records of one response split over several messages carry the same input; the growth
 * is taken once the input moves. Undefined without two recorded calls that grew.
 */
export function recordedTokenRatio(transcript: Transcript, tokenizer: Tokenizer): RecordedTokenRatio | undefined {
  let providerTokens = 0;
  let ourTokens = 0;
  let anchor: number | undefined;
  let grownText = 0;
  let grownOverhead = 0;
  for (const m of transcript.messages) {
    const recorded = m.role === 'assistant' ? recordedPromptTokens(m) : undefined;
    if (recorded !== undefined) {
      if (anchor !== undefined && recorded > anchor + grownOverhead && grownText > 0) {
        providerTokens += recorded - anchor - grownOverhead;
        ourTokens += grownText;
      }
      if (anchor === undefined || recorded !== anchor) {
        anchor = recorded;
        grownText = 0;
        grownOverhead = 0;
      }
    }
    if (anchor !== undefined && !isSourceSummary(m)) {
      const b = countMessage(m, tokenizer);
      grownText += totalOf(b) - b.overhead;
      grownOverhead += b.overhead;
    }
  }
  return ourTokens > 0 ? { ratio: providerTokens / ourTokens, providerTokens, ourTokens } : undefined;
}

/** Whether a `tokenRatio` setting scales the counts at all: 1, the default, does not, and reports leave it out. */
export function scalesCounts(ratio: number | 'recorded' | undefined): ratio is number | 'recorded' {
  return ratio !== undefined && ratio !== 1;
}

/**
 * `tokenizer` with every count multiplied by `ratio` and rounded: the replay then counts in the provider's tokens,
 * and so do the policies' thresholds, as they would in the provider's context window.
 */
export function scaledTokenizer(tokenizer: Tokenizer, ratio: number): Tokenizer {
  return { name: tokenizer.name, engine: tokenizer.engine, count: (text: string) => Math.round(tokenizer.count(text) * ratio) };
}
