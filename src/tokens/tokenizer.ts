import { TextCountCache } from './text-count-cache.js';
import { type BpeEncodingName, type CountOrdinary, DEFAULT_TOKENIZER_ENGINE, type TokenizerEngine, bpeCounter } from './bpe-engines.js';

export const TOKENIZER_NAMES = ['o200k_base', 'cl100k_base', 'heuristic'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

export interface Tokenizer {
  readonly name: TokenizerName;
  /** The library that counts a BPE encoding; null for `heuristic`. */
  readonly engine: TokenizerEngine | null;
  /**
   * Exact for the BPE encodings; `heuristic` is ceil(UTF-16 length / 4), only when asked for. Special-token strings
   * such as `<|endoftext|>` in a transcript are ordinary text and are counted as such (tiktoken's `encode_ordinary`).
   */
  count(text: string): number;
  /**
   * Counts a text in at most one token per UTF-8 byte, as a byte-level BPE does: a strategy may then bound a text's
   * count by its size without counting it. Unset on a counter that scales or frames counts (the replay's), which must
   * be asked.
   */
  readonly atMostOnePerByte?: boolean;
}

interface TokenizerOptions {
  /**
   * Remember the count of each text of {@link CACHE_MIN_LENGTH}+ characters.
   * @default true
   */
  cache?: boolean;
  /**
   * The library that counts the BPE encodings; both give identical counts.
   * @default 'ai-tokenizer'
   */
  engine?: TokenizerEngine;
}

/** Texts shorter than this are cheap to encode; caching them would cost more than it saves (and the cache takes {@link TextCountCache.MIN_LENGTH}+). */
const CACHE_MIN_LENGTH = 64;
/**
 * The cache is dropped once it holds this many characters (it keeps its texts alive, up to 2 bytes a character): a
 * bound on each thread's heap that still spans a shard of repeats. 16M characters cost ~40 MB more peak RSS on a
 * 300 MB archive with 2 workers and were no faster.
 */
const CACHE_MAX_CHARS = 4 * 1024 * 1024;

/**
 * Wraps a counter with a cache of texts and their counts: agent transcripts repeat long texts (re-read files, repeated
 * outputs, the same system prompt in every transcript), and BPE is the most expensive step of the pipeline.
 */
function cached(name: TokenizerName, engine: TokenizerEngine, count: CountOrdinary): Tokenizer {
  const cache = new TextCountCache(CACHE_MAX_CHARS);
  return {
    name,
    engine,
    atMostOnePerByte: true,
    count(text: string): number {
      if (text.length < CACHE_MIN_LENGTH) return text.length === 0 ? 0 : count(text);
      const hit = cache.get(text);
      if (hit >= 0) return hit;
      const n = count(text);
      cache.set(text, n);
      return n;
    },
  };
}

/** A new tokenizer with its own (empty) cache; the pipeline shares one per thread through {@link getTokenizer}. */
export function createTokenizer(name: TokenizerName, options: TokenizerOptions = {}): Tokenizer {
  if (name === 'heuristic') return { name, engine: null, count: (text: string) => Math.ceil(text.length / 4) };
  const engine = options.engine ?? DEFAULT_TOKENIZER_ENGINE;
  const count = bpeCounter(name as BpeEncodingName, engine);
  return options.cache === false ? { name, engine, atMostOnePerByte: true, count } : cached(name, engine, count);
}

const instances = new Map<string, Tokenizer>();

/** The thread's shared tokenizer of an encoding and engine (one cache each). */
export function getTokenizer(name: TokenizerName = 'o200k_base', engine: TokenizerEngine = DEFAULT_TOKENIZER_ENGINE): Tokenizer {
  const key = name === 'heuristic' ? name : `${engine}/${name}`;
  let tokenizer = instances.get(key);
  if (!tokenizer) {
    tokenizer = createTokenizer(name, { engine });
    instances.set(key, tokenizer);
  }
  return tokenizer;
}
