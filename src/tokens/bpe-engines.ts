import { createRequire } from 'node:module';
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { TcompactError } from '../errors.js';
import { BpeCounter } from './bpe-count.js';
import { type RankTable, type SharedRankTable, buildRankTable, viewRankTable } from './rank-table.js';
import { rankFileUrl, readRankFile, writeRankFile } from './rank-file.js';

/** The BPE encodings tcompact counts exactly. */
export type BpeEncodingName = 'o200k_base' | 'cl100k_base';

/**
 * Engines that implement the encodings, all pure JavaScript over gpt-tokenizer's rank arrays, all giving gpt-tokenizer's
 * count on every string of the bundled and shared data (test/tokens/engine-parity.test.ts). `tcompact`, the default, is
 * this project's count-only engine (bpe-count.ts): it builds no token ids and splits o200k_base text without a regex,
 * which takes about 40% less CPU than ai-tokenizer's BPE. ai-tokenizer is fed gpt-tokenizer's rank array and split
 * pattern rather than its own tables (JavaScript object literals that cost ~150 MB of RSS per thread to load).
 */
export const TOKENIZER_ENGINES = ['tcompact', 'ai-tokenizer', 'gpt-tokenizer'] as const;
export type TokenizerEngine = (typeof TOKENIZER_ENGINES)[number];
export const DEFAULT_TOKENIZER_ENGINE: TokenizerEngine = 'tcompact';

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

/** ai-tokenizer's encoding data; only what its constructor reads (the decoder is for `decode`, never called here). */
interface AiEncoding {
  name: string;
  pat_str: string;
  special_tokens: Record<string, number>;
  stringEncoder: Record<string, number>;
  binaryEncoder: [Uint8Array, number][];
  decoder: Record<number, string>;
}

const SPLIT_REGEX: Record<BpeEncodingName, string> = { o200k_base: 'O200K_TOKEN_SPLIT_REGEX', cl100k_base: 'CL100K_TOKEN_SPLIT_REGEX' };

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * ai-tokenizer's encoding built from gpt-tokenizer's rank array (index = rank; a string where the token's bytes are
 * UTF-8, else the bytes). The array's module is dropped from the require cache once read, so only the map stays.
 */
function aiEncodingFromGptRanks(name: BpeEncodingName): AiEncoding {
  const ranks = gptRanks(name);
  // A null prototype: a piece such as `constructor` must not find Object.prototype's members.
  const stringEncoder = Object.create(null) as Record<string, number>;
  const binaryEncoder: [Uint8Array, number][] = [];
  for (let rank = 0; rank < ranks.length; rank++) {
    const token = ranks[rank];
    if (typeof token === 'string') stringEncoder[token] = rank;
    else if (token !== undefined) binaryEncoder.push([Uint8Array.from(token), rank]);
  }
  // ai-tokenizer looks byte tokens up by binary search.
  binaryEncoder.sort((a, b) => compareBytes(a[0], b[0]));
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, RegExp>;
  return { name, pat_str: constants[SPLIT_REGEX[name]].source, special_tokens: {}, stringEncoder, binaryEncoder, decoder: {} };
}

/**
 * ai-tokenizer is an optional peer, not a dependency: it declares the AI SDK 5 as its own peer, and npm warns of that
 * beside the AI SDK 6 that `tcompact/ai-sdk` takes. Only this engine needs it.
 */
function aiTokenizer(name: BpeEncodingName): CountOrdinary {
  let Tokenizer: new (encoding: AiEncoding) => AiTokenizer;
  try {
    ({ Tokenizer } = require('ai-tokenizer') as { Tokenizer: typeof Tokenizer });
  } catch {
    throw new TcompactError('E_CONFIG', 'tokenizer engine ai-tokenizer: the package ai-tokenizer is not installed (npm install ai-tokenizer)');
  }
  const tokenizer = new Tokenizer(aiEncodingFromGptRanks(name));
  if (typeof tokenizer.encodeOrdinary !== 'function') throw new Error('ai-tokenizer has no encodeOrdinary: this version is not supported');
  return (text) => tokenizer.encodeOrdinary(text).length;
}

/** gpt-tokenizer's rank array of an encoding (index = rank), its module dropped from the require cache once read. */
function gptRanks(name: BpeEncodingName): (string | number[] | undefined)[] {
  const id = require.resolve(`gpt-tokenizer/cjs/bpeRanks/${name}`);
  const loadedModule = require(id) as { default?: unknown } | unknown[];
  delete require.cache[id];
  return (Array.isArray(loadedModule) ? loadedModule : loadedModule.default) as (string | number[] | undefined)[];
}

const ownTables = new Map<BpeEncodingName, RankTable>();
const sharedTableKey = (name: BpeEncodingName): string => `tcompact/rank-table/${name}`;

/**
 * tcompact's rank table of an encoding in this thread: the one the thread that started it shared (see
 * {@link shareRankTable}), else the build's rank file (a few ms), else built from gpt-tokenizer's rank array (~250 ms
 * of CPU).
 */
function ownRankTable(name: BpeEncodingName): RankTable {
  let table = ownTables.get(name);
  if (!table) {
    const shared = getEnvironmentData(sharedTableKey(name)) as SharedRankTable | undefined;
    table = shared ? viewRankTable(shared) : (readRankFile(rankFileUrl(name), name) ?? buildRankTable(gptRanks(name)));
    ownTables.set(name, table);
  }
  return table;
}

/** Whether this thread counts with the table a parent thread shared rather than one it built itself. */
export function usesSharedRankTable(name: BpeEncodingName): boolean {
  const shared = getEnvironmentData(sharedTableKey(name)) as SharedRankTable | undefined;
  return shared !== undefined && ownTables.get(name)?.shared.buffer === shared.buffer;
}

/**
 * Builds (once) the rank table tcompact's engine counts with and shares it with every worker thread this thread starts
 * from now on, so a pool of workers loads the ranks once instead of once per worker. Does nothing for other engines
 * and for the heuristic, which load no table.
 */
export function shareRankTable(tokenizer: string, engine: TokenizerEngine): void {
  if (engine !== 'tcompact' || (tokenizer !== 'o200k_base' && tokenizer !== 'cl100k_base')) return;
  setEnvironmentData(sharedTableKey(tokenizer), ownRankTable(tokenizer).shared);
}

/** tcompact's own count-only BPE over gpt-tokenizer's ranks; o200k_base is split by a hand-written scanner. */
function ownCounter(name: BpeEncodingName): CountOrdinary {
  const table = ownRankTable(name);
  let split: RegExp | null = null;
  if (name !== 'o200k_base') {
    const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, RegExp>;
    split = new RegExp(constants[SPLIT_REGEX[name]].source, 'gu');
  }
  const counter = new BpeCounter(table, split);
  return (text) => counter.count(text);
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
    count = engine === 'tcompact' ? ownCounter(name) : engine === 'ai-tokenizer' ? aiTokenizer(name) : gptTokenizer(name);
    loaded.set(key, count);
  }
  return count;
}

/** Writes the rank file of every encoding beside the rank-file module (the build runs this on the compiled one). */
export function writeRankFiles(): void {
  for (const name of ['o200k_base', 'cl100k_base'] as const) writeRankFile(rankFileUrl(name), name, buildRankTable(gptRanks(name)));
}
