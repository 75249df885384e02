import * as z from 'zod';
import { CACHE_RULES, type CacheRules } from '../../provider/cache-rules.js';
import type { ModelPrice } from '../../provider/model-prices.js';

/**
 * US dollars per million tokens, as one call is billed. Defaults, for a model the price table does not list: Anthropic's
 * list prices for Claude Sonnet 4.5 (input 3, cache write 3.75, cache read 0.30, output 15). Change them with
 * `--price-in`, `--price-cache-write`, `--price-cached`, `--price-out`.
 */
export const PricesSchema = z.strictObject({
  /** Uncached input. @default 3 */
  input: z.number().nonnegative().default(3),
  /** Input written to the prompt cache (Anthropic bills it above plain input; OpenAI does not: set it to `input`). @default 3.75 */
  cacheWrite: z.number().nonnegative().default(3.75),
  /** Input read from the prompt cache. @default 0.3 */
  cached: z.number().nonnegative().default(0.3),
  /** Output. @default 15 */
  output: z.number().nonnegative().default(15),
});
export type Prices = z.output<typeof PricesSchema>;

export const DEFAULT_PRICES: Readonly<Prices> = PricesSchema.parse({});

/**
 * The prices a run is given (`--price-in`, `--price-out`, `--price-cache-write`, `--price-cached`): each one given wins
 * over every model's list price; one not given leaves it to the model's list price, else to DEFAULT_PRICES and the
 * cache model's multiples.
 */
export const PriceFlagsSchema = z.strictObject({
  /** @default the model's list price, else 3 */
  input: z.number().nonnegative().optional(),
  /** @default the model's list price, else 15 */
  output: z.number().nonnegative().optional(),
  /** @default the model's list price for the cache's TTL, else the cache model's write multiple of `input` */
  cacheWrite: z.number().nonnegative().optional(),
  /** @default the model's list price, else the cache model's read multiple of `input` */
  cached: z.number().nonnegative().optional(),
});
export type PriceFlags = z.output<typeof PriceFlagsSchema>;

/** What one model's recorded calls are billed at: writes by the TTL they were made with, reads at the provider's price. */
export interface ModelRates {
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

/**
 * A model's rates: each flag given, else its list price (`listed`), else the default input and output prices and
 * Anthropic's multiples of the input price. A given `--price-in` prices every kind of input by its multiples, as
 * before there was a table.
 */
export function modelRates(flags: PriceFlags, listed?: ModelPrice): ModelRates {
  const input = flags.input ?? listed?.input ?? DEFAULT_PRICES.input;
  const output = flags.output ?? listed?.output ?? DEFAULT_PRICES.output;
  const list = flags.input === undefined ? listed : undefined;
  return {
    input,
    output,
    cacheWrite5m: list?.cacheWrite5m ?? round6(input * CACHE_RULES['anthropic-5m'].writeMultiplier),
    cacheWrite1h: list?.cacheWrite1h ?? round6(input * CACHE_RULES['anthropic-1h'].writeMultiplier),
    cacheRead: flags.cached ?? list?.cacheRead ?? round6(input * CACHE_RULES['anthropic-5m'].readMultiplier),
  };
}

/** One replay's or record's input, split as the cache billed it, and its output. */
export interface TokenBill {
  /** All input tokens, cached or not. */
  input: number;
  /** Of `input`, tokens read from the cache. */
  cachedRead: number;
  /** Of `input`, tokens written to the cache. The rest of `input` is plain input. */
  cacheWrites: number;
  output: number;
}

export interface Cost {
  /** Every input token at the plain input price. */
  withoutCache: number;
  /** Cache reads at the cached price, cache writes at the write price, the rest at the input price. */
  withCache: number;
}

/** What a bill costs in US dollars, with the cache's prices and as if every input token were plain input. */
export function costOfBill(bill: TokenBill, prices: Prices): Cost {
  const out = bill.output * prices.output;
  const plain = bill.input - bill.cachedRead - bill.cacheWrites;
  return {
    withoutCache: (bill.input * prices.input + out) / 1e6,
    withCache: (bill.cachedRead * prices.cached + bill.cacheWrites * prices.cacheWrite + plain * prices.input + out) / 1e6,
  };
}

/**
 * The prices of a model's calls under one cache model: input and output as its rates (modelRates); writes at the
 * rate of the cache's TTL (or the cache's multiple of the input price, for a cache without a write premium); reads at
 * the model's read price (the input price without a cache). `--price-cache-write` and `--price-cached` win.
 */
export function pricesFor(rules: CacheRules, flags: PriceFlags, listed?: ModelPrice): Prices {
  const rates = modelRates(flags, listed);
  const write = rules.writeTtl === '5m' ? rates.cacheWrite5m : rules.writeTtl === '1h' ? rates.cacheWrite1h : round6(rates.input * rules.writeMultiplier);
  return {
    input: rates.input,
    cacheWrite: flags.cacheWrite ?? write,
    cached: rules.kind === 'off' ? (flags.cached ?? round6(rates.input * rules.readMultiplier)) : rates.cacheRead,
    output: rates.output,
  };
}

/** Multiples of a price in dollars per million tokens, without float noise (3 * 0.1 is 0.30000000000000004). */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * What rewritten tokens cost above reading them, in US dollars: Anthropic's and the ideal cache write them again,
 * OpenAI's sends them as plain input.
 */
export function rewriteCostOf<K extends string>(tokens: Readonly<Record<K, number>>, rules: CacheRules, prices: Prices): Record<K, number> {
  const extra = ((rules.kind === 'prefix' ? prices.input : prices.cacheWrite) - prices.cached) / 1e6;
  return Object.fromEntries(Object.entries<number>(tokens).map(([k, n]) => [k, n * extra])) as Record<K, number>;
}
