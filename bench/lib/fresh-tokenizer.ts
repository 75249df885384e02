import { createTokenizer, type Tokenizer } from '../../src/tokens/tokenizer.js';

/**
 * A tokenizer with an empty text cache and an empty message memo, for one timed pass: `getTokenizer()` is a
 * process-wide singleton whose cache would make every pass after the first almost free. A new object each time also
 * gives a fresh per-message memo (src/tokens/breakdown.ts keys it by tokenizer).
 */
export function freshTokenizer(name: 'o200k_base' | 'heuristic'): Tokenizer {
  return createTokenizer(name);
}
