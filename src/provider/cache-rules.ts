import { TcompactError } from '../errors.js';
import { type Message, isAssistant, messageContent } from '../model/message.js';

/** The prompt-cache models `simulate --cache` accepts. */
export const CACHE_MODEL_NAMES = ['anthropic-5m', 'anthropic-1h', 'openai', 'google', 'ideal', 'none'] as const;
export type CacheModelName = (typeof CACHE_MODEL_NAMES)[number];

/**
 * How a provider's prompt cache reads, writes and forgets, as its documentation states it (sources in
 * docs/eval-and-simulate.md), or the ideal cache: everything a replay needs to bill a call, in one place.
 */
export interface CacheRules {
  name: CacheModelName;
  /** What the reports call it. */
  label: string;
  /**
   * `breakpoint`: Anthropic's explicit `cache_control` marks, one after the system prompt and tools and one on the
   * prompt's last message (where Claude Code puts them); a read is the longest live entry found at most
   * `lookbackBlocks` content blocks before the last mark. `prefix`: OpenAI's automatic caching, the longest prefix
   * any live earlier prompt shares. `previous`: the ideal cache (the prefix shared with the previous prompt, no
   * expiry, no minimum). `off`: nothing is cached.
   */
  kind: 'breakpoint' | 'prefix' | 'previous' | 'off';
  /**
   * A provider's cache belongs to one model: a session that switches models (Claude Code's Haiku turns between Opus
   * ones) keeps one cache for each, as its recorded reads show. The ideal cache is one per conversation.
   */
  perModel: boolean;
  /** Seconds an entry lives after its last use (a read refreshes it); null: never expires. */
  ttlSeconds: number | null;
  /** A prompt (up to the mark) shorter than this is neither written nor read. */
  minTokens: number;
  /** Cache reads come in whole steps above `minTokens` (OpenAI: 128). */
  step: number;
  /** Content blocks before the last mark searched for an earlier entry (Anthropic: 20). */
  lookbackBlocks: number;
  /**
   * Which of a model's listed write prices (provider/model-prices.ts) the cache's writes are billed at; null: the
   * multiple below of the input price (no write premium for OpenAI's and no cache).
   */
  writeTtl: '5m' | '1h' | null;
  /** Cache write price as a multiple of the input price (for a model without a listed write price); 1 for no write premium. */
  writeMultiplier: number;
  /** Cache read price as a multiple of the input price. */
  readMultiplier: number;
  /** Minimums that differ by model: the first entry whose pattern matches the model's name wins over `minTokens`. @default none */
  minTokensByModel?: readonly (readonly [RegExp, number])[];
  /**
   * The provider promises no hit: a prompt that could read the cache may not (Google's implicit caching). The replay's
   * reads are then the most the cache gives; the record's own share of hits is reported beside them. @default false
   */
  bestEffort?: boolean;
}

const ANTHROPIC = { kind: 'breakpoint', perModel: true, minTokens: 1024, step: 1, lookbackBlocks: 20, readMultiplier: 0.1 } as const;

export const CACHE_RULES: Readonly<Record<CacheModelName, CacheRules>> = {
  'anthropic-5m': {
    ...ANTHROPIC,
    name: 'anthropic-5m',
    label: "Anthropic's prompt cache with the 5-minute TTL",
    ttlSeconds: 5 * 60,
    writeTtl: '5m',
    writeMultiplier: 1.25,
  },
  'anthropic-1h': {
    ...ANTHROPIC,
    name: 'anthropic-1h',
    label: "Anthropic's prompt cache with the 1-hour TTL",
    ttlSeconds: 60 * 60,
    writeTtl: '1h',
    writeMultiplier: 2,
  },
  // OpenAI keeps a cached prefix for 5 to 10 minutes of inactivity, up to an hour off peak, with no guarantee: the usual
  // upper bound (Codex records show full hits 305 s after the previous call). Hits the provider gives beyond it, and
  // misses within it, are best effort: simulate reports them as the spread against the record, never tuned to.
  openai: {
    name: 'openai',
    label: "OpenAI's automatic prompt cache",
    kind: 'prefix',
    perModel: true,
    ttlSeconds: 10 * 60,
    minTokens: 1024,
    step: 128,
    lookbackBlocks: 0,
    writeTtl: null,
    writeMultiplier: 1,
    readMultiplier: 0.1,
  },
  // Google's implicit caching (on by default from Gemini 2.5): prefix matching, no write premium, a read discount, a
  // minimum by model, and no TTL in its docs. 5 minutes is the floor; a replay with a record takes the longest gap after
  // which the record shows a read (billing/cache-choice.ts recordedCacheTtl).
  google: {
    name: 'google',
    label: "Google's implicit caching (Gemini)",
    kind: 'prefix',
    perModel: true,
    ttlSeconds: 5 * 60,
    minTokens: 4096,
    minTokensByModel: [[/^(?:.*\/)?gemini-2\.5/i, 2048]],
    step: 1,
    lookbackBlocks: 0,
    writeTtl: null,
    writeMultiplier: 1,
    readMultiplier: 0.1,
    bestEffort: true,
  },
  ideal: {
    name: 'ideal',
    label: 'an ideal prefix cache',
    kind: 'previous',
    perModel: false,
    ttlSeconds: null,
    minTokens: 0,
    step: 1,
    lookbackBlocks: 0,
    writeTtl: '5m',
    writeMultiplier: 1.25,
    readMultiplier: 0.1,
  },
  none: {
    name: 'none',
    label: 'no prompt cache',
    kind: 'off',
    perModel: false,
    ttlSeconds: null,
    minTokens: 0,
    step: 1,
    lookbackBlocks: 0,
    writeTtl: null,
    writeMultiplier: 1,
    readMultiplier: 1,
  },
};

/** `rules` as they apply to one model's calls: its own minimum where the rules list one. */
export function rulesForModel(rules: CacheRules, model: string): CacheRules {
  const own = rules.minTokensByModel?.find(([pattern]) => pattern.test(model));
  return own === undefined ? rules : { ...rules, minTokens: own[1] };
}

/**
 * Seconds between two calls when a transcript records no timestamps: about the median gap between Claude Code calls
 * on the shared corpus's sessions (7 s; 90% under 32 s), so an untimed transcript never outlives a 5-minute cache.
 * @default 10
 */
export const DEFAULT_CALL_GAP_SECONDS = 10;

/** `--cache`: one of CACHE_MODEL_NAMES, or undefined to choose by source. */
export function parseCacheModel(command: string, value: string | undefined): CacheModelName | undefined {
  if (value === undefined) return undefined;
  if ((CACHE_MODEL_NAMES as readonly string[]).includes(value)) return value as CacheModelName;
  throw new TcompactError('E_USAGE', `${command}: --cache must be one of ${CACHE_MODEL_NAMES.join(', ')} (got "${value}")`);
}

/** Content blocks of a message as a provider counts them: each content part and each tool call (at least one). */
export function contentBlocks(m: Message): number {
  const content = messageContent(m);
  const calls = isAssistant(m) ? (m.tool_calls?.length ?? 0) : 0;
  return Math.max(1, (Array.isArray(content) ? content.length : 1) + calls);
}
