import type { Message } from '../../model/message.js';
import { answeringModel, isModelCall, recordedCall, timestampMs } from '../../model/recorded.js';
import type { Transcript } from '../../model/transcript.js';
import { CACHE_RULES, type CacheModelName, type CacheRules } from '../../provider/cache-rules.js';
import { MODEL_PRICES, type PriceTable, findModelPrice } from '../../provider/model-prices.js';
import { type ModelRates, type PriceFlags, type Prices, modelRates, pricesFor } from './prices.js';
import type { RecordedUsage } from './recorded-usage.js';

/**
 * Which prompt cache bills a transcript's replay, and at which prices each of its calls: decided here and nowhere
 * else. The ideal cache is one set of rules among the others; a call is priced by the model that answered it.
 */
export interface CacheChoice {
  rules: CacheRules;
  /** The model a reply's call is billed as (see callModelOf). */
  modelOf(message: Message): string;
  /** The prices of the calls of `model` (a name modelOf gave, or a record's). */
  pricingOf(model: string): ModelPricing;
  /** The model that answered most replies (the first of them on a tie): the agent's, whose prices bill its own summaries. */
  mainModel: string;
}

export interface CacheSettings {
  /** Every transcript's cache; by its source when absent (`defaultCacheModel`). */
  cache?: CacheModelName;
  prices: PriceFlags;
  /** List prices that override or extend the built-in table (`--prices FILE`). @default none */
  modelPrices?: PriceTable;
  /** Seconds between calls of a transcript without timestamps. */
  callGapSeconds: number;
}

/** What a call is billed as when neither its reply nor its transcript names a model. */
export const UNRECORDED_MODEL = '(no model recorded)';

/** Where a model's prices came from: its entry in `--prices FILE` or in the built-in table; absent: the flags and defaults. */
export interface ModelListing {
  /** The entry's name (`claude-opus-4-5` for `claude-opus-4-5-20251101`). */
  name: string;
  from: 'file' | 'table';
}

/** One model's prices: the record's rates, the replay's prices under a cache's rules, and where they came from. */
export interface ModelPricing {
  listed?: ModelListing;
  rates: ModelRates;
  prices: Prices;
}

export function chooseCache(transcript: Transcript, recorded: RecordedUsage | undefined, settings: CacheSettings): CacheChoice {
  const listed = CACHE_RULES[settings.cache ?? defaultCacheModel(transcript, recorded)];
  const modelOf = callModelOf(transcript);
  const ttl = listed.bestEffort === true ? recordedCacheTtl(transcript, listed, modelOf) : undefined;
  const rules = ttl === undefined ? listed : { ...listed, ttlSeconds: ttl };
  const pricings = new Map<string, ModelPricing>();
  const replies = new Map<string, number>();
  for (const m of transcript.messages) if (isModelCall(m)) replies.set(modelOf(m), (replies.get(modelOf(m)) ?? 0) + 1);
  let mainModel: string | undefined;
  for (const [model, n] of replies) if (mainModel === undefined || n > (replies.get(mainModel) ?? 0)) mainModel = model;
  return {
    rules,
    modelOf,
    pricingOf: (model) => {
      let pricing = pricings.get(model);
      if (!pricing) pricings.set(model, (pricing = modelPricing(model, rules, settings)));
      return pricing;
    },
    mainModel: mainModel ?? callModelOf(transcript)(NO_REPLY),
  };
}

/** A reply that names no model: what a transcript without replies is billed as. */
const NO_REPLY = { role: 'assistant', content: '' } as Message;

/**
 * The model a reply's call is billed as: the one recorded on it, else the last one its transcript names
 * (`metadata.models`), else UNRECORDED_MODEL.
 */
export function callModelOf(transcript: Transcript): (message: Message) => string {
  const models = transcript.metadata?.models;
  const last = Array.isArray(models) ? models[models.length - 1] : undefined;
  const fallback = typeof last === 'string' && last !== '' ? last : UNRECORDED_MODEL;
  return (m) => answeringModel(m) ?? fallback;
}

/** One model's prices under `rules`: its list price where a table lists it, else the flags and defaults; a given flag wins. */
export function modelPricing(model: string, rules: CacheRules, settings: Pick<CacheSettings, 'prices' | 'modelPrices'>): ModelPricing {
  const inFile = settings.modelPrices === undefined ? undefined : findModelPrice(model, settings.modelPrices);
  const found = inFile ?? findModelPrice(model, MODEL_PRICES);
  return {
    ...(found ? { listed: { name: found.name, from: inFile ? 'file' : 'table' } } : {}),
    rates: modelRates(settings.prices, found?.price),
    prices: pricesFor(rules, settings.prices, found?.price),
  };
}

/**
 * The cache of the provider a source's agent runs on: Claude Code -> anthropic-5m, or anthropic-1h when most of its
 * recorded writes were 1-hour ones (Claude Code asks for the longer TTL on some plans), Codex -> openai, Gemini CLI ->
 * google, Qwen Code -> its backend's (qwenBackendCache). Other formats: by the model the transcript names (`metadata.models`: `claude...` -> anthropic-5m, `gpt...`,
 * `o1`/`o3`/`o4...`, `codex...` -> openai, `gemini...` -> google), else anthropic-5m, the provider of the default prices.
 */
export function defaultCacheModel(transcript: Transcript, recorded?: Pick<RecordedUsage, 'cacheCreation' | 'cacheCreation1h'>): CacheModelName {
  const source = transcript.metadata?.source as { format?: unknown } | undefined;
  const format = typeof source?.format === 'string' ? source.format : undefined;
  if (format === 'claude-code') return answeredByOtherBackend(transcript) ?? (mostlyOneHour(recorded) ? 'anthropic-1h' : 'anthropic-5m');
  if (format === 'codex') return 'openai';
  if (format === 'gemini' || format === 'gemini-checkpoint') return 'google';
  if (format === 'qwen') return qwenBackendCache(transcript);
  const models = transcript.metadata?.models;
  const last = Array.isArray(models) ? models[models.length - 1] : undefined;
  return typeof last === 'string' ? (cacheModelOfModel(last) ?? 'anthropic-5m') : 'anthropic-5m';
}

/**
 * Claude Code pointed at another provider's Anthropic-compatible endpoint (`ANTHROPIC_BASE_URL`, a DeepSeek model):
 * the cache is that provider's, chosen from the models that answered, not from the client. Such backends cache
 * prefixes on their own, write nothing (`cache_creation_input_tokens` always 0) and read in fixed steps, as OpenAI's
 * prompt cache does: the cache its name implies, else `openai`. Undefined when a Claude model answered any call.
 */
function answeredByOtherBackend(transcript: Transcript): CacheModelName | undefined {
  const models = transcript.metadata?.models;
  if (!Array.isArray(models) || models.length === 0) return undefined;
  const named = models.filter((m): m is string => typeof m === 'string');
  if (named.length === 0 || named.some((m) => cacheModelOfModel(m)?.startsWith('anthropic'))) return undefined;
  return cacheModelOfModel(named[named.length - 1]) ?? 'openai';
}

/**
 * Qwen Code's cache is its backend's. On DashScope (Qwen OAuth, or Qwen's own models by API key) Qwen Code marks the
 * system message, the last message and the last tool `cache_control: ephemeral` (qwen-code
 * `openaiContentGenerator/provider/dashscope.ts`): DashScope's explicit cache, whose rules are Anthropic's (writes at
 * 125% of the input price, reads at 10%, 5 minutes renewed on a hit, 1,024 tokens at least, 20 blocks looked back), so
 * `anthropic-5m`. Qwen records its reads (`cachedContentTokenCount`) but no writes, so there the replay bills writes
 * the record cannot show. On any other OpenAI-compatible backend: the cache its model's name implies, else a prefix
 * cache that writes nothing (`openai`), as for Claude Code on another provider's endpoint.
 */
function qwenBackendCache(transcript: Transcript): CacheModelName {
  const models = (Array.isArray(transcript.metadata?.models) ? transcript.metadata.models : []).filter((m): m is string => typeof m === 'string');
  const onDashScope = transcript.metadata?.authType === 'qwen-oauth' || (models.length > 0 && models.every((m) => DASHSCOPE_MODELS.test(m)));
  if (onDashScope) return 'anthropic-5m';
  return (models.length > 0 ? cacheModelOfModel(models[models.length - 1]) : undefined) ?? 'openai';
}

/** Qwen's own model names as DashScope serves them (`qwen3-coder-plus`, Qwen OAuth's `coder-model`), not a gateway's `qwen/...`. */
const DASHSCOPE_MODELS = /^(qwen[\w.-]*|coder-model|vision-model)$/i;

/** The provider cache a model's name implies (`gpt...`, `o1`/`o3`/`o4...`, `codex...` -> openai, `gemini...` -> google), if any. */
export function cacheModelOfModel(model: string): CacheModelName | undefined {
  if (/^(gpt|o\d|codex|openai\/)/i.test(model)) return 'openai';
  if (/^(gemini|google\/|models\/gemini)/i.test(model)) return 'google';
  if (/^(claude|anthropic\/)/i.test(model)) return 'anthropic-5m';
  return undefined;
}

/**
 * A best-effort cache's TTL, where its provider states none, taken from the transcript's own record: the longest gap
 * between a call and the previous call of its model after which the call recorded a cache read, never below the rules'
 * own (the floor). Undefined when the record shows no such read.
 */
export function recordedCacheTtl(transcript: Transcript, rules: CacheRules, modelOf: (m: Message) => string): number | undefined {
  let longest: number | undefined;
  for (const { gapMs, read } of callGaps(transcript, modelOf)) if (read > 0 && (longest === undefined || gapMs > longest)) longest = gapMs;
  if (longest === undefined) return undefined;
  return Math.max(rules.ttlSeconds ?? 0, Math.ceil(longest / 1000));
}

/**
 * How often a best-effort cache hit on the record: of the recorded calls made within `ttlSeconds` of their model's
 * previous call (and after one), how many read the cache. The replay reads at every such call; this is the record's
 * share, reported beside it as the spread of what the cache may give.
 */
export function recordedHits(transcript: Transcript, ttlSeconds: number | null, modelOf: (m: Message) => string): { eligible: number; hit: number } {
  let eligible = 0;
  let hit = 0;
  for (const { gapMs, read } of callGaps(transcript, modelOf)) {
    if (ttlSeconds !== null && gapMs > ttlSeconds * 1000) continue;
    eligible++;
    if (read > 0) hit++;
  }
  return { eligible, hit };
}

/** Each timed recorded call after an earlier one of its model: the gap since that one and what it read from the cache. */
function* callGaps(transcript: Transcript, modelOf: (m: Message) => string): Generator<{ gapMs: number; read: number }> {
  const lastAt = new Map<string, number>();
  for (const m of transcript.messages) {
    if (m.role !== 'assistant') continue;
    const call = recordedCall(m);
    const at = timestampMs(m);
    if (call === undefined || at === undefined || call.uncached + call.read + call.written === 0) continue;
    const model = modelOf(m);
    const before = lastAt.get(model);
    lastAt.set(model, at);
    if (before !== undefined) yield { gapMs: at - before, read: call.read };
  }
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
  /** Each cache model's rules, and its prices for a model no table lists (listed ones: see ModelPricesReport). */
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
 * The prices a report heads with, those of a model no table lists: under the first cache model the run used (of
 * `--cache`'s, or Anthropic's 5-minute cache's, before any transcript).
 */
export function headlinePrices(transcripts: ReadonlyMap<CacheModelName, number>, settings: CacheSettings): Prices {
  return pricesFor(CACHE_RULES[[...transcripts.keys()][0] ?? settings.cache ?? 'anthropic-5m'], settings.prices);
}

/** One model's rates, whatever the cache: its list price where a table lists it, else the flags and defaults. */
export function ratesOfModel(model: string, settings: Pick<CacheSettings, 'prices' | 'modelPrices'>): ModelRates {
  return modelPricing(model, CACHE_RULES['anthropic-5m'], settings).rates;
}

/**
 * The rates one model of a run was billed at, and where they came from: its entry in `--prices FILE` or the built-in
 * table (`listed`; absent: DEFAULT_PRICES and Anthropic's multiples), and the `--price-*` flags given, which win over
 * both (`flags`; absent: none).
 */
export interface ModelPriceUse {
  listed?: ModelListing;
  flags?: PriceFlagName[];
  rates: ModelRates;
}

/** The flags that set a price for every call, as the command line names them. */
export type PriceFlagName = '--price-in' | '--price-out' | '--price-cache-write' | '--price-cached';

const FLAG_NAMES: Record<keyof PriceFlags, PriceFlagName> = {
  input: '--price-in',
  output: '--price-out',
  cacheWrite: '--price-cache-write',
  cached: '--price-cached',
};

/** By model, in the order the models were first billed. */
export type ModelPricesReport = Record<string, ModelPriceUse>;

/** The rates of `models`, in their order. */
export function modelPricesReport(models: Iterable<string>, settings: Pick<CacheSettings, 'prices' | 'modelPrices'>): ModelPricesReport {
  const flags = (Object.keys(FLAG_NAMES) as (keyof PriceFlags)[]).filter((k) => settings.prices[k] !== undefined).map((k) => FLAG_NAMES[k]);
  const out: ModelPricesReport = {};
  for (const model of models) {
    const { listed, rates } = modelPricing(model, CACHE_RULES['anthropic-5m'], settings);
    out[model] = { ...(listed ? { listed } : {}), ...(flags.length > 0 ? { flags } : {}), rates };
  }
  return out;
}
