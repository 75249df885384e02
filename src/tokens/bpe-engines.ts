import { createRequire } from 'node:module';

/** The BPE encodings tcompact counts exactly. */
export type BpeEncodingName = 'o200k_base' | 'cl100k_base';

/**
 * Libraries that implement the encodings. Both are pure JavaScript and give the same count on every string of the
 * bundled and shared data (test/tokens/engine-parity.test.ts). ai-tokenizer counts 1.16x (synthetic text) to 2.25x
 * (real agent output) as fast alone, but its rank table costs ~140 MB per thread against ~54 MB: `run --workers 2`
 * on the 20 MB synthetic archive peaked at 533 MB with it and 348 MB with gpt-tokenizer (6% slower end to end), which
 * would break the < 400 MB bound on a 1 GB archive. So gpt-tokenizer stays the default; ai-tokenizer is a library
 * option (`createTokenizer(name, { engine: 'ai-tokenizer' })`) until its table is smaller.
 */
export const TOKENIZER_ENGINES = ['ai-tokenizer', 'gpt-tokenizer'] as const;
export type TokenizerEngine = (typeof TOKENIZER_ENGINES)[number];
export const DEFAULT_TOKENIZER_ENGINE: TokenizerEngine = 'gpt-tokenizer';

/** Counts the tokens of a text as ordinary text: special-token strings such as `<|endoftext|>` are not honoured. */
export type CountOrdinary = (text: string) => number;

// A rank table costs tens of MB and ~100 ms to load, so it is loaded on first use, and only the one chosen: every
// worker thread imports this module. The CommonJS builds are what make a synchronous load possible.
const require = createRequire(import.meta.url);
const loaded = new Map<string, CountOrdinary>();

interface AiTokenizer {
  // Private in the library's typings, public at run time: the only entry point that skips special-token handling
  // without allocating a regex per call (`encode(text, [], [])` splits on special tokens; `count` throws on them).
  encodeOrdinary(text: string): number[];
}

function aiTokenizer(name: BpeEncodingName): CountOrdinary {
  const { Tokenizer } = require('ai-tokenizer') as { Tokenizer: new (encoding: unknown) => AiTokenizer };
  const tokenizer = new Tokenizer(require(`ai-tokenizer/encoding/${name}`));
  if (typeof tokenizer.encodeOrdinary !== 'function') throw new Error('ai-tokenizer has no encodeOrdinary: this version is not supported');
  return (text) => tokenizer.encodeOrdinary(text).length;
}

function gptTokenizer(name: BpeEncodingName): CountOrdinary {
  type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;
  const { countTokens } = require(`gpt-tokenizer/cjs/encoding/${name}`) as { countTokens: CountTokens };
  const ordinary = { disallowedSpecial: new Set<string>() };
  return (text) => countTokens(text, ordinary);
}

/** The counter of one encoding in one engine, loaded once per thread. */
export function bpeCounter(name: BpeEncodingName, engine: TokenizerEngine = DEFAULT_TOKENIZER_ENGINE): CountOrdinary {
  const key = `${engine}/${name}`;
  let count = loaded.get(key);
  if (!count) {
    count = engine === 'ai-tokenizer' ? aiTokenizer(name) : gptTokenizer(name);
    loaded.set(key, count);
  }
  return count;
}
