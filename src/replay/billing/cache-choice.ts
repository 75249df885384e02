import type { Transcript } from '../../model/transcript.js';
import { CACHE_RULES, type CacheModelName, type CacheRules } from '../../provider/cache-rules.js';
import { type PriceFlags, type Prices, pricesFor } from './prices.js';
import type { RecordedUsage } from './recorded-usage.js';

/**
 * Which prompt cache bills a transcript's replay, and at which prices: decided here and nowhere else. The ideal cache
 * is one set of rules among the others.
 */
export interface CacheChoice {
  rules: CacheRules;
  prices: Prices;
}

export interface CacheSettings {
  /** Every transcript's cache; by its source when absent (`defaultCacheModel`). */
  cache?: CacheModelName;
  prices: PriceFlags;
  /** Seconds between calls of a transcript without timestamps. */
  callGapSeconds: number;
}

export function chooseCache(transcript: Transcript, recorded: RecordedUsage | undefined, settings: CacheSettings): CacheChoice {
  const rules = CACHE_RULES[settings.cache ?? defaultCacheModel(transcript, recorded)];
  return { rules, prices: pricesFor(rules, settings.prices) };
}

/**
 * The cache of the provider a source's agent runs on: Claude Code -> anthropic-5m, or anthropic-1h when most of its
 * recorded writes were 1-hour ones (Claude Code asks for the longer TTL on some plans), Codex -> openai. Other formats:
 * by the model the transcript names (`metadata.models`: `claude...` -> anthropic-5m, `gpt...`, `o1`/`o3`/`o4...`,
 * `codex...` -> openai), else anthropic-5m, the provider of the default prices.
 */
export function defaultCacheModel(transcript: Transcript, recorded?: Pick<RecordedUsage, 'cacheCreation' | 'cacheCreation1h'>): CacheModelName {
  const source = transcript.metadata?.source as { format?: unknown } | undefined;
  const format = typeof source?.format === 'string' ? source.format : undefined;
  if (format === 'claude-code') return mostlyOneHour(recorded) ? 'anthropic-1h' : 'anthropic-5m';
  if (format === 'codex') return 'openai';
  const models = transcript.metadata?.models;
  const last = Array.isArray(models) ? models[models.length - 1] : undefined;
  if (typeof last === 'string' && /^(gpt|o\d|codex|openai\/)/i.test(last)) return 'openai';
  return 'anthropic-5m';
}

/** Whether most of the recorded cache writes were made with the 1-hour TTL. */
function mostlyOneHour(recorded: Pick<RecordedUsage, 'cacheCreation' | 'cacheCreation1h'> | undefined): boolean {
  return recorded !== undefined && recorded.cacheCreation1h > recorded.cacheCreation - recorded.cacheCreation1h;
}

/** The prompt-cache models a run billed with: their rules and prices, and how they were chosen. */
export interface CacheReport {
  /** `flag`: `--cache` for every transcript; `source`: each transcript's by its source. */
  chosenBy: 'flag' | 'source';
  /** Seconds between calls assumed for transcripts without timestamps. */
  callGapSeconds: number;
  /** Transcripts that recorded no timestamp (their calls are spaced by callGapSeconds). */
  untimedTranscripts: number;
  models: Partial<Record<CacheModelName, { transcripts: number; ttlSeconds: number | null; minTokens: number; step: number; prices: Prices }>>;
}

/** The account of the caches a run used: `transcripts` by cache model, in the order they were first used. */
export function cacheReport(transcripts: ReadonlyMap<CacheModelName, number>, untimed: number, settings: CacheSettings): CacheReport {
  const models: CacheReport['models'] = {};
  for (const [name, count] of transcripts) {
    const r = CACHE_RULES[name];
    models[name] = { transcripts: count, ttlSeconds: r.ttlSeconds, minTokens: r.minTokens, step: r.step, prices: pricesFor(r, settings.prices) };
  }
  return {
    chosenBy: settings.cache === undefined ? 'source' : 'flag',
    callGapSeconds: settings.callGapSeconds,
    untimedTranscripts: untimed,
    models,
  };
}

/**
 * The prices a report heads with: those of the first cache model the run used (of `--cache`'s, or Anthropic's 5-minute
 * cache's, before any transcript).
 */
export function headlinePrices(transcripts: ReadonlyMap<CacheModelName, number>, settings: CacheSettings): Prices {
  return pricesFor(CACHE_RULES[[...transcripts.keys()][0] ?? settings.cache ?? 'anthropic-5m'], settings.prices);
}
