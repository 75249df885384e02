import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { type Tokenizer } from '../../src/tokens/tokenizer.js';

/**
 * A tokenizer with an empty text cache and an empty message memo, for one timed pass: `getTokenizer()` is a process-wide singleton whose cache
 * would make every pass after the first almost free. Mirrors src/tokens/tokenizer.ts (texts of 64+ characters cached,
 * at most 20,000 entries), so a pass costs what one run over the corpus costs.
 */
export function freshTokenizer(name: 'o200k_base' | 'heuristic'): Tokenizer {
  // A new object each time also gives a fresh per-message memo (src/tokens/breakdown.ts keys it by tokenizer).
  if (name === 'heuristic') return { name, count: (text: string) => Math.ceil(text.length / 4) };
  const cache = new Map<string, number>();
  return {
    name,
    count(text: string): number {
      if (text.length < 64) return text.length === 0 ? 0 : countTokens(text);
      const hit = cache.get(text);
      if (hit !== undefined) return hit;
      const n = countTokens(text);
      if (cache.size >= 20_000) cache.clear();
      cache.set(text, n);
      return n;
    },
  };
}
