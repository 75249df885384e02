import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';

export const TOKENIZER_NAMES = ['o200k_base', 'cl100k_base', 'heuristic'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

export interface Tokenizer {
  readonly name: TokenizerName;
  /** Exact for the BPE encodings; `heuristic` is ceil(UTF-16 length / 4), only when asked for. */
  count(text: string): number;
}

/** Texts shorter than this are cheap to encode; caching them would cost more than it saves. */
const CACHE_MIN_LENGTH = 64;
const CACHE_MAX_ENTRIES = 20_000;

/**
 * Wraps a counter with a cache keyed by the text itself: agent transcripts repeat long texts (re-read files, repeated
 * outputs, the same system prompt in every transcript), and BPE is the most expensive step of the pipeline.
 */
function cached(name: TokenizerName, count: (text: string) => number): Tokenizer {
  const cache = new Map<string, number>();
  return {
    name,
    count(text: string): number {
      if (text.length < CACHE_MIN_LENGTH) return text.length === 0 ? 0 : count(text);
      const hit = cache.get(text);
      if (hit !== undefined) return hit;
      const n = count(text);
      if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
      cache.set(text, n);
      return n;
    },
  };
}

const instances = new Map<TokenizerName, Tokenizer>();

export function getTokenizer(name: TokenizerName = 'o200k_base'): Tokenizer {
  let tokenizer = instances.get(name);
  if (!tokenizer) {
    tokenizer =
      name === 'heuristic'
        ? { name, count: (text: string) => Math.ceil(text.length / 4) }
        : cached(name, name === 'o200k_base' ? (t) => countO200k(t) : (t) => countCl100k(t));
    instances.set(name, tokenizer);
  }
  return tokenizer;
}
